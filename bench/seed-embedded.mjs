// Seeds an embedded (PGlite) data directory the way run.mjs seeds PostgreSQL: the same SQL, through
// the service's own code for opening the directory (migrations applied, lock taken and released).
// Run while no server holds the directory. Usage: node bench/seed-embedded.mjs <dataDir>
// Prints {"rows":[{id,version},…]} on stdout.
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../dist/src/app-config.js';
import { openDataSource } from '../dist/src/database/open-data-source.js';
import { seed } from './payloads.mjs';

Logger.overrideLogger(['error', 'fatal']);
const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: node bench/seed-embedded.mjs <dataDir>\n');
  process.exit(2);
}
const opened = await openDataSource(loadConfig({ DATA_DIR: dataDir }).database, { migrate: true });
try {
  const rows = await seed(opened.pool);
  // stdout is a pipe: wait until the data is out before exiting.
  await new Promise((resolve) => process.stdout.write(`${JSON.stringify({ rows })}\n`, resolve));
} finally {
  await opened.close();
}
process.exit(0);
