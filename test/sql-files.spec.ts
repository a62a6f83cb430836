import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './support/server-process.js';

/*
 * The SQL a reviewer reads is the SQL that runs: every repository's statements are rendered to the `.sql`
 * file beside it (`npm run sql`), and a statement changed without its file fails here. Statements live in the
 * repository's `*_SQL` objects, never inline in a method, so that none escapes the file.
 */

function repositories(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return repositories(path);
    return entry.name.endsWith('.repository.ts') ? [path] : [];
  });
}

describe('rendered SQL', () => {
  it('every repository has its .sql file, as the code builds it', () => {
    const check = spawnSync(process.execPath, ['scripts/render-sql.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    const files = execFileSync('git', ['ls-files', '--others', '--cached', '--exclude-standard', 'src'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
    for (const repository of repositories(join(ROOT, 'src'))) {
      expect(files).toContain(relative(ROOT, repository).replace(/\.ts$/, '.sql'));
    }
  });

  it('no repository method passes SQL text of its own to the database', () => {
    const inline = /\.(query|one)(<[^>]*>)?\(\s*[`'"]/;
    const offenders = repositories(join(ROOT, 'src')).filter((file) => inline.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('names a file that differs from what the code builds', () => {
    const file = join(ROOT, 'src/resource/resource.repository.sql');
    const rendered = readFileSync(file, 'utf8');
    expect(rendered).toContain('-- RESOURCE_SQL.upsert: resource_upsert (:id, :projectKey, :key, :by, :publish, :document, :expected, :owner, :publishGiven)');
    try {
      writeFileSync(file, rendered.replace('INSERT INTO', 'INSERT  INTO'));
      const check = spawnSync(process.execPath, ['scripts/render-sql.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
      expect(check.status).toBe(1);
      expect(check.stderr).toContain('src/resource/resource.repository.sql');
    } finally {
      writeFileSync(file, rendered);
    }
  });
});

describe('resource writes', () => {
  const WRITES_RESOURCE = /\b(INSERT INTO|UPDATE|DELETE FROM) resource\b/;

  it('only the resource, bulk and images repositories write the resource table', () => {
    const writers = repositories(join(ROOT, 'src')).filter((file) => WRITES_RESOURCE.test(readFileSync(file, 'utf8')));
    expect(writers.map((file) => relative(ROOT, file)).sort()).toEqual([
      'src/images/images.repository.ts',
      'src/resource/bulk/bulk.repository.ts',
      'src/resource/resource.repository.ts',
    ]);
  });

  it('every statement that writes a resource records its messages, and its version unless it deletes', async () => {
    const { RESOURCE_SQL } = await import('../src/resource/resource.repository.js');
    const { BULK_SQL } = await import('../src/resource/bulk/bulk.repository.js');
    const { IMAGES_SQL } = await import('../src/images/images.repository.js');
    const statements = [...Object.values(RESOURCE_SQL), ...Object.values(BULK_SQL), ...Object.values(IMAGES_SQL)];
    const writes = statements.flatMap((s) => (typeof s === 'object' && WRITES_RESOURCE.test(s.text) ? [s] : []));
    expect(writes.map((s) => s.name).sort()).toEqual([
      'bulk_import_batch',
      'images_attach_job',
      'images_attach_now',
      'resource_create_complete',
      'resource_create_many',
      'resource_create_many_complete',
      'resource_delete',
      'resource_replace_by_key',
      'resource_update',
      'resource_update_many',
      'resource_upsert',
    ]);
    for (const write of writes) {
      expect(write.text).toContain('INSERT INTO message');
      expect(write.text.includes('INSERT INTO resource_version')).toBe(write.name !== 'resource_delete');
    }
  });
});
