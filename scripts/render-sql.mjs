#!/usr/bin/env node
// Renders the statements of every repository to a `.sql` file beside it, so that a change to a query shows in
// the diff as SQL: `src/resource/resource.repository.ts` → `src/resource/resource.repository.sql`.
//
//   npm run sql             build if needed, then write the files
//   npm run sql -- --check  exit 1, naming the files, when one is missing or differs from what the code builds
//
// A repository keeps its statements in exported objects whose names end in `_SQL` (see
// src/database/named-statement.ts). Each member is rendered under its name: a named statement as written (its
// `:name` placeholders), a `{name, text}` statement or a string as is, and a function with `examples` (a
// statement built from its arguments, e.g. a `where`) called with each.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'sql-formatter';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

async function repositories(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await repositories(path)));
    else if (entry.name.endsWith('.repository.ts')) found.push(path);
  }
  return found.sort();
}

function pretty(sql, named) {
  try {
    return format(sql, { language: 'postgresql', keywordCase: 'preserve', paramTypes: named ? { named: [':'] } : { numbered: ['$'] } });
  } catch {
    // A construct the formatter does not know: the text as built, without its common indentation.
    const lines = sql.replace(/^\s*\n/, '').trimEnd().split('\n');
    const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length));
    return lines.map((l) => l.slice(indent)).join('\n');
  }
}

function render(key, member) {
  if (typeof member === 'string') return [`-- ${key}`, pretty(member, false)];
  if (typeof member === 'function') {
    if (!Array.isArray(member.examples)) throw new Error(`${key}: a statement built by a function needs \`examples\` of its arguments`);
    const described = (example, i) => {
      const json = JSON.stringify(example);
      return json.length <= 160 ? `built from ${json}` : `example ${i + 1}`;
    };
    return [member.examples.map((example, i) => `-- ${key}, ${described(example, i)}\n${pretty(member(...example), false)}`).join(';\n\n')];
  }
  if (typeof member.source === 'string') {
    const parameters = member.parameters.length > 0 ? `(${member.parameters.map((p) => `:${p}`).join(', ')})` : '()';
    return [`-- ${key}: ${member.name} ${parameters}`, pretty(member.source, true)];
  }
  if (typeof member.text === 'string') return [`-- ${key}: ${member.name}`, pretty(member.text, false)];
  throw new Error(`${key}: not a statement`);
}

async function renderFile(source) {
  const compiled = join(root, 'dist', relative(root, source)).replace(/\.ts$/, '.js');
  const module = await import(pathToFileURL(compiled).href);
  const groups = Object.entries(module).filter(([name]) => name.endsWith('_SQL'));
  if (groups.length === 0) throw new Error(`${relative(root, source)} exports no *_SQL object of statements`);
  const blocks = [`-- The statements of ${relative(join(root, 'src'), source)}, rendered by \`npm run sql\`: edit the repository, not this file.`];
  for (const [group, members] of groups) {
    for (const [key, member] of Object.entries(members)) blocks.push(render(`${group}.${key}`, member).join('\n') + ';');
  }
  return `${blocks.join('\n\n')}\n`;
}

const stale = [];
for (const source of await repositories(join(root, 'src'))) {
  const target = source.replace(/\.ts$/, '.sql');
  const text = await renderFile(source);
  const current = await readFile(target, 'utf8').catch(() => undefined);
  if (current === text) continue;
  if (check) stale.push(relative(root, target));
  else await writeFile(target, text);
}
if (stale.length > 0) {
  console.error(`Not as the code builds them (run \`npm run sql\`): ${stale.join(', ')}`);
  process.exit(1);
}
