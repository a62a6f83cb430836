// `npm run build`: compiles src/ and ormconfig.ts to dist/ with SWC, one file at a time and without type checking
// (about 1 s for the whole tree; `npm run typecheck` is the type check, which `npm test` runs first). The
// output is plain ES modules with the decorator metadata Nest, class-validator and TypeORM read.
//   node scripts/build.mjs              compile everything (dist/src is emptied first: no file of a deleted source stays)
//   node scripts/build.mjs --if-changed compile only when a source, .swcrc or package-lock.json is newer than the last build
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformFile } from '@swc/core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.built');
const INPUTS = ['src', 'ormconfig.ts', '.swcrc', 'package-lock.json'];

/** The newest modification time among `path` and, for a directory, everything under it. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Whether dist/ is older than any of its inputs (or was never built). */
export function outdated() {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((input) => newest(join(ROOT, input)) > built);
}

/** The TypeScript files to compile: src/ but its unit tests, and ormconfig.ts. */
function sources(dir = join(ROOT, 'src')) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Compiles the whole tree (the settings are .swcrc's); resolves to the milliseconds it took. */
export async function build() {
  const started = Date.now();
  rmSync(join(ROOT, 'dist', 'src'), { recursive: true, force: true });
  await Promise.all(
    [...sources(), join(ROOT, 'ormconfig.ts')].map(async (file) => {
      const out = join(ROOT, 'dist', relative(ROOT, file)).replace(/\.ts$/, '.js');
      const { code, map } = await transformFile(file, { cwd: ROOT, sourceMaps: true, outputPath: out });
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${code}\n//# sourceMappingURL=${basename(out)}.map\n`);
      if (map) writeFileSync(`${out}.map`, map);
    }),
  );
  const now = new Date();
  writeFileSync(STAMP, `${now.toISOString()}\n`);
  utimesSync(STAMP, now, now);
  return Date.now() - started;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifChanged = process.argv.includes('--if-changed');
  if (!ifChanged || outdated()) {
    build().then(
      (ms) => process.argv.includes('--quiet') || process.stderr.write(`compiled src/ to dist/ in ${ms} ms\n`),
      (error) => {
        process.stderr.write(`compiling failed: ${error.message ?? error}\n`);
        process.exit(1);
      },
    );
  }
}
