/**
 * A migrated embedded data directory, made once and copied into each test app's fresh DATA_DIR.
 *
 * Creating an embedded database (initdb in WebAssembly) and applying every migration took about 3.5 s
 * per test app; the suite starts about a hundred of them. Copying a directory that was shut down
 * cleanly after the same migrations gives PostgreSQL the same files those steps would have written, so
 * the app starts on them as on any existing data directory (the migrations table says nothing is
 * pending). The template's name carries a hash of the migrations and of the PGlite version, so a
 * changed migration makes a new one; it lives in the temporary directory and is shared by runs.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/app-config.js';
import { openDataSource } from '../../src/database/open-data-source.js';
import { ROOT } from './server-process.js';

const PGDATA = 'pgdata';
const READY = 'template-ready';

/** Fills `dataDir` with the migrated template when it holds no database yet (a reused directory is kept). */
export async function seedEmbeddedDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, PGDATA))) return;
  const template = await migratedTemplate();
  cpSync(join(template, PGDATA), join(dataDir, PGDATA), { recursive: true });
}

async function migratedTemplate(): Promise<string> {
  const path = join(tmpdir(), `resource-api-template-${templateKey()}`);
  if (existsSync(join(path, READY))) return path;
  const building = mkdtempSync(join(tmpdir(), 'resource-api-template-building-'));
  try {
    const { database } = loadConfig({ DATA_DIR: building, LOG_LEVEL: 'error' });
    const opened = await openDataSource(database, { migrate: true });
    await opened.close();
    writeFileSync(join(building, READY), new Date().toISOString());
    renameSync(building, path);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another run finished the same template first: use that one.
    if (existsSync(join(path, READY))) return path;
    throw error;
  }
  return path;
}

/** The migrations' sources and the PGlite version: what decides the template's files. */
function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = join(ROOT, 'src', 'database', 'migrations');
  for (const name of readdirSync(migrations).sort()) hash.update(name).update(readFileSync(join(migrations, name)));
  hash.update(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  return hash.digest('hex').slice(0, 16);
}
