import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { configureApp, createHttpAdapter } from './configure-app.js';
import { ConfigError, loadConfig } from './config/app-config.js';
import { DataDirectoryLockedError } from './database/embedded-postgres.js';
import { stopGracefullyOnSignals } from './shutdown.js';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createHttpAdapter(config), {
    bodyParser: false,
    logger: [...LOG_LEVELS[config.logLevel]],
  });
  configureApp(app, config);
  stopGracefullyOnSignals(app, config.http.shutdownTimeoutMs);
  await app.listen(config.http.port, config.http.host);
  new Logger('Server').log(`listening on http://${config.http.host}:${config.http.port} (docs at /docs)`);
}

const LOG_LEVELS = {
  error: ['error', 'fatal'],
  warn: ['error', 'fatal', 'warn'],
  log: ['error', 'fatal', 'warn', 'log'],
  debug: ['error', 'fatal', 'warn', 'log', 'debug'],
} as const;

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirectoryLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    new Logger('Server').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
  process.exit(1);
});
