// `npm run build`: compiles src/ and ormconfig.ts to dist/ with SWC, one file at a time and without type checking
// (about 1 s for the whole tree; `npm run typecheck` is the type check, which `npm test` runs first). The
// output is plain ES modules with the decorator metadata Nest, class-validator and TypeORM read.
//   node scripts/build.mjs              compile everything (dist/src is emptied first: no file of a deleted source stays)
//   node scripts/build.mjs --if-changed compile only when a source, .swcrc or package-lock.json is newer than the last build
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

/** Compiles the whole tree; throws when SWC fails. */
export function build() {
  const started = Date.now();
  rmSync(join(ROOT, 'dist', 'src'), { recursive: true, force: true });
  const swc = join(ROOT, 'node_modules', '@swc', 'cli', 'bin', 'swc.js');
  const result = spawnSync(process.execPath, [swc, 'src', 'ormconfig.ts', '-d', 'dist', '--ignore', '**/*.spec.ts', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`compiling failed (swc exited with ${result.status ?? result.signal})`);
  const now = new Date();
  writeFileSync(STAMP, `${now.toISOString()}\n`);
  utimesSync(STAMP, now, now);
  return Date.now() - started;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifChanged = process.argv.includes('--if-changed');
  try {
    if (!ifChanged || outdated()) {
      const ms = build();
      if (!process.argv.includes('--quiet')) process.stderr.write(`compiled src/ to dist/ in ${ms} ms\n`);
    }
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
