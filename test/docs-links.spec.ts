import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { anchorOf, anchorsOf, linksOf, prose } from './support/markdown.js';
import { ROOT } from './support/server-process.js';

/*
 * The documentation holds together: every relative link of README.md and docs/*.md names a file of the
 * repository and, for a Markdown page, a heading of it (GitHub's anchors); every page of docs/ opens with
 * its table of contents; the configuration table names every variable the server reads; and nothing in
 * the repository points at a file that does not ship with it.
 */

const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** What is wrong with one link of `file` (undefined: it points somewhere). */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: outside the repository by intent
  const [path, anchor] = target.split('#', 2);
  const resolved = path ? resolve(dirname(join(ROOT, file)), decodeURIComponent(path)) : join(ROOT, file);
  if (!resolved.startsWith(ROOT)) return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: no file ${relative(ROOT, resolved)}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return `${target}: an anchor into a file that is not a Markdown page`;
  return anchorsOf(readFileSync(resolved, 'utf8')).has(anchor) ? undefined : `${target}: ${relative(ROOT, resolved)} has no heading with the anchor #${anchor}`;
}

describe('anchors and links, as GitHub renders them', () => {
  it('derives anchors from headings as GitHub does', () => {
    expect(anchorOf('Create — `POST /{projectKey}/resource`')).toBe('create--post-projectkeyresource');
    expect(anchorOf('Who may do what: API clients')).toBe('who-may-do-what-api-clients');
    expect(anchorOf('Modules (one folder each under `src/`)')).toBe('modules-one-folder-each-under-src');
    expect([...anchorsOf('## Images\n```sh\n# not a heading\n```\n## Images\n### Über_all')]).toEqual(['images', 'images-1', 'über_all']);
  });

  it('reads links outside code only', () => {
    expect(linksOf('See [a](docs/a.md#x) and ![b](b.png "t").\n`[c](c.md)`\n```\n[d](d.md)\n```')).toEqual(['docs/a.md#x', 'b.png']);
  });

  it('finds a link to a missing file or heading', () => {
    expect(brokenLink('README.md', 'docs/rules.md#limits')).toBeUndefined();
    expect(brokenLink('README.md', 'docs/rules.md#no-such-heading')).toMatch(/has no heading with the anchor #no-such-heading/);
    expect(brokenLink('README.md', 'docs/nothing.md')).toMatch(/no file docs\/nothing\.md/);
    expect(brokenLink('docs/rules.md', '#no-such-heading')).toMatch(/docs\/rules\.md has no heading/);
    expect(brokenLink('docs/rules.md', '../../elsewhere.md')).toMatch(/outside the repository/);
  });
});

describe('the documentation', () => {
  it.each(PAGES)('%s: every relative link and anchor points at a file and a heading of the repository', (file) => {
    const broken = linksOf(read(file))
      .map((target) => brokenLink(file, target))
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it.each(PAGES.filter((file) => file.startsWith('docs/')))('%s opens with a table of contents listing each of its sections', (file) => {
    const lines = prose(read(file));
    const sections = lines.map((line) => /^## (.*)$/.exec(line)?.[1]).filter((heading): heading is string => heading !== undefined);
    expect(sections[0]).toBe('Contents');
    const contents = lines.slice(lines.indexOf('## Contents') + 1, lines.findIndex((line, i) => i > lines.indexOf('## Contents') && line.startsWith('## ')));
    const listed = contents.flatMap((line) => [...line.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]));
    expect(listed).toEqual(expect.arrayContaining(sections.slice(1).map(anchorOf)));
  });

  it('the configuration table of docs/operations.md names every variable the server reads', () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) sources.push(readFileSync(join(dir, entry.name), 'utf8'));
      }
    };
    walk(join(ROOT, 'src'));
    const variables = new Set(sources.flatMap((text) => [...text.matchAll(/\bread\.\w+\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1])));
    expect(variables.size).toBeGreaterThan(50);
    const table = read('docs/operations.md');
    expect([...variables].filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });
});

describe('the repository', () => {
  /** Pointers at files and documents that do not ship with the project. */
  const OUTSIDE = [/C[O]NTRACT\.md/, /\.\.\/shar[e]d\b/, /spec\/resource-ap[i]\.md/, /design[ ]card/i];
  const SKIPPED = new Set(['node_modules', '.git', 'dist', 'data', 'test-output', 'coverage']);

  it('points at nothing outside itself: no file names a document the project does not ship', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (SKIPPED.has(entry.name)) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (statSync(path).size < 2_000_000 && !/\.(png|jpe?g|gif|ico|woff2?)$/.test(entry.name)) {
          const text = readFileSync(path, 'utf8');
          for (const pattern of OUTSIDE) if (pattern.test(text)) offenders.push(`${relative(ROOT, path)}: ${pattern.source}`);
        }
      }
    };
    walk(ROOT);
    expect(offenders).toEqual([]);
  });
});
