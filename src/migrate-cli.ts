import 'reflect-metadata';
import { ConfigError, loadConfig } from './app-config.js';
import { DataDirectoryLockedError } from './database/embedded-postgres.js';
import { openDataSource } from './database/open-data-source.js';

/** `npm run migration:run`: applies pending migrations (under the advisory lock) and exits. */
async function main(): Promise<void> {
  const opened = await openDataSource(loadConfig().database, { migrate: true });
  await opened.close();
  process.stdout.write('migrations are up to date\n');
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DataDirectoryLockedError;
  process.stderr.write(`${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
