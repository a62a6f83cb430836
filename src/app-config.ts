import type { Provider } from '@nestjs/common';
import { authConfig } from './auth/auth.config.js';
import { bulkConfig } from './resource/bulk/bulk.config.js';
import { changeLogConfig } from './change-log/change-log.config.js';
import { EnvReader, type Env } from './config/env-reader.js';
import { httpConfig } from './config/http.config.js';
import { databaseConfig } from './database/database.config.js';
import { imagesConfig } from './images/images.config.js';
import { actionsConfig } from './namespace-actions/actions.config.js';
import { logLevelConfig, metricsConfig } from './observability/observability.config.js';
import { outboundConfig } from './outbound/outbound.config.js';
import { searchConfig } from './search/search.config.js';
import { subscriptionsConfig } from './subscriptions/subscriptions.config.js';
import { extensionsConfig } from './extensions/extensions.config.js';
import { liveConfig } from './live/live.config.js';

/**
 * The service's configuration: each module's own section (its `*.config.ts` reads and validates its
 * variables), read from the environment once at start-up. Every bad or missing variable of every
 * section is listed in one ConfigError and the service refuses to start.
 */
const SECTIONS = {
  http: httpConfig,
  database: databaseConfig,
  auth: authConfig,
  images: imagesConfig,
  bulk: bulkConfig,
  actions: actionsConfig,
  metrics: metricsConfig,
  search: searchConfig,
  changeLog: changeLogConfig,
  subscriptions: subscriptionsConfig,
  extensions: extensionsConfig,
  live: liveConfig,
  outbound: outboundConfig,
  logLevel: logLevelConfig,
};

export type AppConfig = { [K in keyof typeof SECTIONS]: ReturnType<(typeof SECTIONS)[K]['read']> };

export { ConfigError } from './config/env-reader.js';

/** `env` defaults to the process environment. */
export function loadConfig(env?: Env): AppConfig {
  const read = new EnvReader(env);
  const config = Object.fromEntries(Object.entries(SECTIONS).map(([name, section]) => [name, section.read(read)])) as AppConfig;
  read.assertValid();
  return config;
}

/** Each section under its own token, for the modules that inject it (`@Inject(authConfig.KEY)`). */
export function configProviders(config: AppConfig): Provider[] {
  return (Object.keys(SECTIONS) as (keyof AppConfig)[]).map((name) => ({ provide: SECTIONS[name].KEY, useValue: config[name] }));
}
