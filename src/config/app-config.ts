import type { ActionDeclaration } from '../namespace-actions/action-declaration.js';
import { ActionsFileError, loadActionsFile, MAX_TIMEOUT_MS } from '../namespace-actions/actions-file.js';
import { LANGUAGE_CONFIGS } from '../search/text-search.js';

/**
 * The service's configuration, read from the environment once and validated at start-up: every bad or
 * missing variable is listed in one message. Nothing outside this folder reads `process.env`.
 */
export interface DatabaseConfig {
  /** PostgreSQL connection string; absent → embedded PGlite in `dataDir`. */
  url?: string;
  dataDir: string;
  poolSize: number;
  statementTimeoutMs: number;
  migrationsRun: boolean;
}

export interface HttpConfig {
  port: number;
  host: string;
  bodyLimitBytes: number;
  /** Longest request target (path and query, as sent) → 414; the request line and headers may take 16 KiB more. */
  maxUrlBytes: number;
  /** A request whose headers are not all received within this is cut (408): slowloris. */
  headersTimeoutMs: number;
  /** A request not wholly received (headers and body) within this is cut (408): slow bodies. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Host check (CONTRACT.md §0): all three set → `Host` must be `api.<region>.<provider>.<domain>`. */
  apiDomain?: string;
  apiRegions: string[];
  apiCloudProviders: string[];
  publicBaseUrl?: string;
  corsOrigins: string[];
  /** After SIGTERM/SIGINT: how long in-flight requests may run before their connections are cut. */
  shutdownTimeoutMs: number;
}

export interface BootstrapClientConfig {
  projectKey: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
}

export interface AuthConfig {
  /** `iss` and `aud` of the tokens this server issues. */
  issuer: string;
  tokenTtlSeconds: number;
  /** PEM (PKCS#8) RSA private key; absent → a key generated once and stored in the database. */
  privateKeyPem?: string;
  /** How long a replica trusts that a client still exists (a deleted client's tokens fail within this). */
  clientCheckSeconds: number;
  /** Tokens of an external issuer, verified against its JWKS. */
  external?: { jwksUrl: string; issuer: string; audience: string };
  bootstrap?: BootstrapClientConfig;
  /** Create and print a demo client on an empty embedded database. */
  demoClient: boolean;
  rateLimitPerMinute: number;
}

/** Namespace actions (CONTRACT.md §8): the operator's declarations, validated at start-up. */
export interface ActionsConfig {
  /** ACTIONS_FILE (JSON or YAML); absent → the built-in defaults only. */
  file?: string;
  declarations: ActionDeclaration[];
  /** Default timeout of `forward` handlers. */
  forwardTimeoutMs: number;
}

/** Image upload and serving (CONTRACT.md §6, §10 "Images"). */
export interface ImagesConfig {
  /** Largest accepted image: 10 MB = 10,485,760 bytes, fixed by the contract. */
  maxBytes: number;
  /** Uploads whose bodies are read and stored at the same time; the rest wait (bounds memory). */
  uploadConcurrency: number;
  /** How often each server's worker looks for images accepted with 202 and not yet attached. */
  workerIntervalMs: number;
  /** An upload whose body sends nothing for this long is refused (it would hold an upload slot). */
  readIdleTimeoutMs: number;
}

export const IMAGES_MAX_BYTES = 10_485_760;

/** Prometheus metrics at `/metrics` (README "Metrics"): off unless METRICS_TOKEN is set. */
export interface MetricsConfig {
  /** The bearer token a scraper sends; absent → `/metrics` does not exist (404). */
  token?: string;
}

/** Full-text search (CONTRACT.md §5): the languages indexed with their own stemming. */
export interface SearchConfig {
  /** PostgreSQL text-search configurations (`english`, …) of SEARCH_LANGUAGES; `simple` is always indexed too. */
  configs: string[];
}

export interface AppConfig {
  http: HttpConfig;
  database: DatabaseConfig;
  auth: AuthConfig;
  images: ImagesConfig;
  actions: ActionsConfig;
  metrics: MetricsConfig;
  search: SearchConfig;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** A bearer token's characters (RFC 6750 b64token), long enough not to be guessed. */
const METRICS_TOKEN = /^[A-Za-z0-9\-._~+/=]{16,512}$/;

type Env = Record<string, string | undefined>;

class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string): string | undefined;
  string(name: string, fallback: string): string;
  string(name: string, fallback?: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name}: must be an integer from ${min} to ${max} (got '${raw}')`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    this.problems.push(`${name}: must be true or false (got '${raw}')`);
    return fallback;
  }

  list(name: string): string[] {
    return (this.string(name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw as T)) {
      this.problems.push(`${name}: must be one of ${allowed.join(', ')} (got '${raw}')`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error();
      return raw;
    } catch {
      this.problems.push(`${name}: must be a ${protocols.join(' or ')} URL`);
      return undefined;
    }
  }
}

export class ConfigError extends Error {}

export function loadConfig(env: Env = process.env): AppConfig {
  const read = new EnvReader(env);
  const config: AppConfig = {
    http: {
      port: read.int('PORT', 8080, 0, 65535),
      host: read.string('HOST', '0.0.0.0'),
      bodyLimitBytes: read.int('HTTP_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
      maxUrlBytes: read.int('HTTP_MAX_URL_BYTES', 65_536, 1024, 1_048_576),
      headersTimeoutMs: read.int('HTTP_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
      requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
      keepAliveTimeoutMs: read.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
      apiDomain: read.string('API_DOMAIN'),
      apiRegions: read.list('API_REGIONS'),
      apiCloudProviders: read.list('API_CLOUD_PROVIDERS'),
      publicBaseUrl: read.url('PUBLIC_BASE_URL', ['http:', 'https:']),
      corsOrigins: read.list('HTTP_CORS_ORIGINS'),
      shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    },
    database: {
      url: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
      dataDir: read.string('DATA_DIR', './data'),
      poolSize: read.int('DATABASE_POOL_SIZE', 10, 1, 200),
      statementTimeoutMs: read.int('DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
      migrationsRun: read.bool('DATABASE_MIGRATIONS_RUN', true),
    },
    auth: {
      issuer: read.string('AUTH_TOKEN_ISSUER', 'resource-api'),
      tokenTtlSeconds: read.int('AUTH_TOKEN_TTL_SECONDS', 172_800, 60, 31_536_000),
      privateKeyPem: read.string('AUTH_PRIVATE_KEY')?.replace(/\\n/g, '\n'),
      clientCheckSeconds: read.int('AUTH_CLIENT_CHECK_SECONDS', 3, 0, 5),
      external: undefined,
      bootstrap: undefined,
      demoClient: read.bool('AUTH_DEMO_CLIENT', true),
      rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 60_000, 0, 100_000_000),
    },
    images: {
      maxBytes: IMAGES_MAX_BYTES,
      uploadConcurrency: read.int('IMAGES_UPLOAD_CONCURRENCY', 4, 1, 64),
      workerIntervalMs: read.int('IMAGES_WORKER_INTERVAL_MS', 500, 10, 86_400_000),
      readIdleTimeoutMs: read.int('IMAGES_READ_IDLE_TIMEOUT_MS', 30_000, 100, 600_000),
    },
    actions: {
      file: read.string('ACTIONS_FILE'),
      declarations: [],
      forwardTimeoutMs: read.int('ACTIONS_FORWARD_TIMEOUT_MS', 8_000, 1, MAX_TIMEOUT_MS),
    },
    metrics: {
      token: read.string('METRICS_TOKEN'),
    },
    search: { configs: [] },
    logLevel: read.oneOf('LOG_LEVEL', 'log', ['error', 'warn', 'log', 'debug'] as const),
  };
  if (config.actions.file) {
    try {
      config.actions.declarations = loadActionsFile(config.actions.file);
    } catch (error) {
      if (!(error instanceof ActionsFileError)) throw error;
      read.problems.push(...error.problems.map((problem) => `ACTIONS_FILE: ${problem}`));
    }
  }
  const languages = read.string('SEARCH_LANGUAGES', 'en');
  const codes = languages === 'none' ? [] : languages.split(',').map((code) => code.trim());
  if (codes.some((code) => !Object.hasOwn(LANGUAGE_CONFIGS, code))) {
    read.problems.push(`SEARCH_LANGUAGES: 'none' or a comma list of ${Object.keys(LANGUAGE_CONFIGS).join(', ')} (got '${languages}')`);
  }
  config.search.configs = [...new Set(codes.filter((code) => Object.hasOwn(LANGUAGE_CONFIGS, code)).map((code) => LANGUAGE_CONFIGS[code]))];
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    read.problems.push('HTTP_HEADERS_TIMEOUT_MS: must not be greater than HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  const hostCheck = [config.http.apiDomain, config.http.apiRegions.length, config.http.apiCloudProviders.length];
  if (hostCheck.some(Boolean) && !hostCheck.every(Boolean)) {
    read.problems.push('API_DOMAIN, API_REGIONS and API_CLOUD_PROVIDERS: set all three or none');
  }
  const external = [read.url('AUTH_JWKS_URL', ['http:', 'https:']), read.string('AUTH_ISSUER'), read.string('AUTH_AUDIENCE')];
  if (external.every(Boolean)) {
    config.auth.external = { jwksUrl: external[0]!, issuer: external[1]!, audience: external[2]! };
  } else if (external.some(Boolean)) {
    read.problems.push('AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE: set all three or none');
  }
  const bootstrap = ['BOOTSTRAP_PROJECT_KEY', 'BOOTSTRAP_CLIENT_ID', 'BOOTSTRAP_CLIENT_SECRET', 'BOOTSTRAP_SCOPES'].map((n) => read.string(n));
  if (bootstrap.every(Boolean)) {
    const [projectKey, clientId, clientSecret, scopes] = bootstrap as string[];
    config.auth.bootstrap = { projectKey, clientId, clientSecret, scopes };
    if (!/^[a-z0-9-]{2,36}$/.test(projectKey)) read.problems.push('BOOTSTRAP_PROJECT_KEY: 2 to 36 characters of a-z, 0-9 and -');
    if (clientSecret.length < 16) read.problems.push('BOOTSTRAP_CLIENT_SECRET: at least 16 characters');
  } else if (bootstrap.some(Boolean)) {
    read.problems.push('BOOTSTRAP_PROJECT_KEY, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET and BOOTSTRAP_SCOPES: set all four or none');
  }
  if (config.metrics.token !== undefined && !METRICS_TOKEN.test(config.metrics.token)) {
    read.problems.push('METRICS_TOKEN: 16 to 512 characters of A-Z, a-z, 0-9 and -._~+/=');
  }
  if (read.problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  - ${read.problems.join('\n  - ')}`);
  }
  return config;
}
