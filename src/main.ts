import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { configureApp, createHttpAdapter } from './configure-app.js';
import { ConfigError, loadConfig } from './app-config.js';
import { DataDirectoryLockedError } from './database/embedded-postgres.js';
import { stopGracefullyOnSignals } from './shutdown.js';
import { createLogger } from './observability/logger.js';
import { NestLogger } from './observability/nest-logger.js';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './heap-growth.js';

async function bootstrap(): Promise<void> {
  // The embedded database, when it opens, lowers this further for its share of the process.
  limitHeapGrowth(HEAP_GROWING_PERCENT.SERVER);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createHttpAdapter(config, logger), {
    bodyParser: false,
    logger: new NestLogger(logger),
  });
  configureApp(app, config);
  stopGracefullyOnSignals(app, config.http.shutdownTimeoutMs);
  await app.listen(config.http.port, config.http.host);
  new Logger('Server').log(`listening on http://${config.http.host}:${config.http.port} (docs at /docs)`);
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirectoryLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    new Logger('Server').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
  process.exit(1);
});
