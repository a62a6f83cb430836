import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../src/database/database.js';
import { loadConfig } from '../../src/app-config.js';
import { draft } from '../support/fixtures.js';
import { createTestApp, onPostgres, type TestApp } from '../support/test-app.js';

/**
 * SEARCH_LANGUAGES (docs/api-guide.md#search): the languages the server is configured to index, English at
 * least; any other language is still accepted and matches words without stemming: which
 * configurations get rows, what a search in another language answers, and the re-indexing at
 * start-up when the setting changes.
 */
describe('search languages (SEARCH_LANGUAGES)', () => {
  const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'search-languages-'));
  const env = (languages?: string): Record<string, string> => ({
    ...(languages === undefined ? {} : { SEARCH_LANGUAGES: languages }),
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  });
  const textDraft = (key: string, text: string) => draft({ key }, { arrayOfStringExample: [text] });
  let projectKey: string;
  let ids: { haus: string; run: string };

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function keys(t: TestApp, lang: string, text: string): Promise<string[]> {
    const res = await t.http
      .get(`/${projectKey}/resource/searchApiPattern`)
      .query({ [`text.${lang}`]: text })
      .set(await t.auth('view_test', { projectKey }));
    expect(res.status).toBe(200);
    return (res.body.results as Array<{ key: string }>).map((r) => r.key).sort();
  }

  /** The configurations of one resource's `resource_search` rows. */
  async function configsOf(t: TestApp, id: string): Promise<string[]> {
    const rows = await t.app.get(Database).query<{ config: string }>('SELECT config FROM resource_search WHERE resource_id = $1 ORDER BY config', [id]);
    return rows.map((r) => r.config);
  }

  async function listed(t: TestApp): Promise<string[]> {
    const rows = await t.app.get(Database).query<{ config: string }>('SELECT config FROM search_language ORDER BY config');
    return rows.map((r) => r.config);
  }

  it('by default indexes English and simple only; German text answers without stemming', async () => {
    const t = await createTestApp(env());
    try {
      projectKey = t.projectKey;
      const auth = await t.auth('manage_test', { projectKey });
      const haus = await t.http.post(`/${projectKey}/resource`).set(auth).send(textDraft('r1', 'Das Haus am See'));
      const run = await t.http.post(`/${projectKey}/resource`).set(auth).send(textDraft('r2', 'she runs every morning'));
      expect([haus.status, run.status]).toEqual([201, 201]);
      ids = { haus: haus.body.id, run: run.body.id };

      expect(await listed(t)).toEqual(['english', 'simple']);
      expect(await configsOf(t, ids.haus)).toEqual(['english', 'simple', 'values']);
      expect(await keys(t, 'en', 'running')).toEqual(['r2']);
      // No German rows: text.de is answered from simple, so only the word as written matches.
      expect(await keys(t, 'de', 'Häuser')).toEqual([]);
      expect(await keys(t, 'de-DE', 'haus')).toEqual(['r1']);
      // A language without stemming of its own at all, as before.
      expect(await keys(t, 'sv', 'morning')).toEqual(['r2']);
    } finally {
      await t.close();
    }
  });

  it('a restart with a language added indexes the existing resources in it', async () => {
    const t = await createTestApp(env('en,de'));
    try {
      expect(await listed(t)).toEqual(['english', 'german', 'simple']);
      expect(await configsOf(t, ids.haus)).toEqual(['english', 'german', 'simple', 'values']);
      expect(await keys(t, 'de', 'Häuser')).toEqual(['r1']);
      // New writes get the German row too.
      const auth = await t.auth('manage_test', { projectKey });
      const res = await t.http.post(`/${projectKey}/resource`).set(auth).send(textDraft('r3', 'Hunde'));
      expect(res.status).toBe(201);
      expect(await configsOf(t, res.body.id)).toEqual(['english', 'german', 'simple', 'values']);
      expect(await keys(t, 'de', 'Hund')).toEqual(['r3']);
    } finally {
      await t.close();
    }
  });

  it('a restart with a language removed deletes its rows (and leaves the default for the files after this one)', async () => {
    const t = await createTestApp(env('en'));
    try {
      expect(await listed(t)).toEqual(['english', 'simple']);
      expect(await configsOf(t, ids.haus)).toEqual(['english', 'simple', 'values']);
      const german = await t.app.get(Database).query<{ n: number }>("SELECT count(*)::integer AS n FROM resource_search WHERE config = 'german'");
      expect(german).toEqual([{ n: 0 }]);
      expect(await keys(t, 'de', 'Häuser')).toEqual([]);
      expect(await keys(t, 'en', 'running')).toEqual(['r2']);
    } finally {
      await t.close();
    }
  });

  it('refuses an unknown language, and a list without English, at start-up', () => {
    expect(() => loadConfig({ SEARCH_LANGUAGES: 'en,xx' })).toThrow(/SEARCH_LANGUAGES: a comma list of en, de, fr, es, it, nl, pt with en among them \(got 'en,xx'\)/);
    expect(() => loadConfig({ SEARCH_LANGUAGES: 'english' })).toThrow(/SEARCH_LANGUAGES/);
    // English at least (docs/rules.md#search).
    expect(() => loadConfig({ SEARCH_LANGUAGES: 'de' })).toThrow(/with en among them \(got 'de'\)/);
    expect(() => loadConfig({ SEARCH_LANGUAGES: 'none' })).toThrow(/SEARCH_LANGUAGES/);
    expect(loadConfig({ SEARCH_LANGUAGES: 'de, en,de' }).search.configs).toEqual(['german', 'english']);
    expect(loadConfig({}).search.configs).toEqual(['english']);
  });
});
