import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/app-config.js';
import { buildDataSourceOptions } from './src/database/data-source-options.js';

/**
 * The TypeORM CLI's data source (e.g. `npx typeorm migration:show -d dist/ormconfig.js`), built by
 * the same builder as the app. It needs DATABASE_URL: the embedded database is served only by a
 * running server process; use `npm run migration:run` for either kind.
 */
const config = loadConfig();
if (!config.database.url) throw new Error('ormconfig.ts needs DATABASE_URL (use `npm run migration:run` for the embedded database).');

export default new DataSource(buildDataSourceOptions(config.database, { url: config.database.url }));
