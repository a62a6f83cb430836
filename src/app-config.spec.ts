import { ConfigError, loadConfig } from './app-config.js';

/** loadConfig(env): defaults, every bad value in one ConfigError, all-or-none groups. */

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  describe('defaults (empty environment)', () => {
    const config = loadConfig({});

    it.each([
      ['http.port', config.http.port, 8080],
      ['http.host', config.http.host, '0.0.0.0'],
      ['http.bodyLimitBytes', config.http.bodyLimitBytes, 1_048_576],
      ['http.maxUrlBytes', config.http.maxUrlBytes, 65_536],
      ['http.projectMaxResponseBytes', config.http.projectMaxResponseBytes, 134_217_728],
      ['http.headersTimeoutMs', config.http.headersTimeoutMs, 20_000],
      ['http.requestTimeoutMs', config.http.requestTimeoutMs, 120_000],
      ['http.keepAliveTimeoutMs', config.http.keepAliveTimeoutMs, 72_000],
      ['http.apiDomain', config.http.apiDomain, undefined],
      ['http.apiRegions', config.http.apiRegions, []],
      ['http.apiCloudProviders', config.http.apiCloudProviders, []],
      ['http.publicBaseUrl', config.http.publicBaseUrl, undefined],
      ['http.corsOrigins', config.http.corsOrigins, []],
      ['http.shutdownTimeoutMs', config.http.shutdownTimeoutMs, 10_000],
      ['database.url', config.database.url, undefined],
      ['database.dataDir', config.database.dataDir, './data'],
      ['database.poolSize', config.database.poolSize, 10],
      ['database.statementTimeoutMs', config.database.statementTimeoutMs, 10_000],
      ['database.migrationsRun', config.database.migrationsRun, true],
      ['database.replicaUrls', config.database.replicaUrls, []],
      ['database.replicaMaxLagMs', config.database.replicaMaxLagMs, 2_000],
      ['logLevel', config.logLevel, 'log'],
      ['metrics.token', config.metrics.token, undefined],
      ['changeLog.messagesRetentionDays', config.changeLog.messagesRetentionDays, 15],
      ['changeLog.historyRetentionDays', config.changeLog.historyRetentionDays, 90],
      ['changeLog.retentionIntervalSeconds', config.changeLog.retentionIntervalSeconds, 300],
      ['images.blobReclaimDelayMs', config.images.blobReclaimDelayMs, 600_000],
      ['auth.rateLimitTokenPerMinute', config.auth.rateLimitTokenPerMinute, 600],
      ['auth.hashConcurrency', config.auth.hashConcurrency, 2],
      ['http.trustProxyHops', config.http.trustProxyHops, 0],
      ['http.maxResponseBytes', config.http.maxResponseBytes, 67_108_864],
      ['database.projectConcurrency', config.database.projectConcurrency, 5],
      ['images.minBytesPerSecond', config.images.minBytesPerSecond, 16_384],
      ['images.maxDimension', config.images.maxDimension, 20_000],
      ['images.maxPixels', config.images.maxPixels, 100_000_000],
    ])('%s', (_name, actual, expected) => {
      expect(actual).toEqual(expected);
    });

    it('treats empty strings as unset', () => {
      const config = loadConfig({ PORT: '', DATA_DIR: '', DATABASE_URL: '', API_DOMAIN: '', LOG_LEVEL: '' });
      expect(config.http.port).toBe(8080);
      expect(config.database.dataDir).toBe('./data');
      expect(config.database.url).toBeUndefined();
      expect(config.http.apiDomain).toBeUndefined();
      expect(config.logLevel).toBe('log');
    });

    it('reads only the environment it is given', () => {
      const saved = process.env.PORT;
      process.env.PORT = 'not-a-port';
      try {
        expect(loadConfig({}).http.port).toBe(8080);
      } finally {
        if (saved === undefined) delete process.env.PORT;
        else process.env.PORT = saved;
      }
    });
  });

  describe('valid values', () => {
    it.each([
      [{ PORT: '0' }, (c: ReturnType<typeof loadConfig>) => c.http.port, 0],
      [{ PORT: '65535' }, (c: ReturnType<typeof loadConfig>) => c.http.port, 65535],
      [{ DATA_DIR: '/var/lib/x' }, (c: ReturnType<typeof loadConfig>) => c.database.dataDir, '/var/lib/x'],
      [{ DATABASE_URL: 'postgres://u@h:5432/d' }, (c: ReturnType<typeof loadConfig>) => c.database.url, 'postgres://u@h:5432/d'],
      [{ DATABASE_URL: 'postgresql://u@h/d' }, (c: ReturnType<typeof loadConfig>) => c.database.url, 'postgresql://u@h/d'],
      [{ DATABASE_POOL_SIZE: '200' }, (c: ReturnType<typeof loadConfig>) => c.database.poolSize, 200],
      [{ DATABASE_MIGRATIONS_RUN: 'no' }, (c: ReturnType<typeof loadConfig>) => c.database.migrationsRun, false],
      [{ DATABASE_MIGRATIONS_RUN: 'TRUE' }, (c: ReturnType<typeof loadConfig>) => c.database.migrationsRun, true],
      [{ HTTP_BODY_LIMIT_BYTES: '1024' }, (c: ReturnType<typeof loadConfig>) => c.http.bodyLimitBytes, 1024],
      [{ HTTP_MAX_URL_BYTES: '1024' }, (c: ReturnType<typeof loadConfig>) => c.http.maxUrlBytes, 1024],
      [{ HTTP_MAX_RESPONSE_BYTES: '65536', PROJECT_MAX_RESPONSE_BYTES: '65536' }, (c: ReturnType<typeof loadConfig>) => c.http.projectMaxResponseBytes, 65_536],
      [{ HTTP_HEADERS_TIMEOUT_MS: '100', HTTP_REQUEST_TIMEOUT_MS: '100' }, (c: ReturnType<typeof loadConfig>) => [c.http.headersTimeoutMs, c.http.requestTimeoutMs], [100, 100]],
      [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '3600000' }, (c: ReturnType<typeof loadConfig>) => c.http.keepAliveTimeoutMs, 3_600_000],
      [{ HTTP_CORS_ORIGINS: ' https://a.example , https://b.example ,' }, (c: ReturnType<typeof loadConfig>) => c.http.corsOrigins, ['https://a.example', 'https://b.example']],
      [{ PUBLIC_BASE_URL: 'https://api.example.com' }, (c: ReturnType<typeof loadConfig>) => c.http.publicBaseUrl, 'https://api.example.com'],
      [{ SHUTDOWN_TIMEOUT_MS: '100' }, (c: ReturnType<typeof loadConfig>) => c.http.shutdownTimeoutMs, 100],
      [{ SHUTDOWN_TIMEOUT_MS: '600000' }, (c: ReturnType<typeof loadConfig>) => c.http.shutdownTimeoutMs, 600_000],
      [{ LOG_LEVEL: 'debug' }, (c: ReturnType<typeof loadConfig>) => c.logLevel, 'debug'],
      [{ RATE_LIMIT_TOKEN_PER_MINUTE: '0' }, (c: ReturnType<typeof loadConfig>) => c.auth.rateLimitTokenPerMinute, 0],
      [{ AUTH_HASH_CONCURRENCY: '8' }, (c: ReturnType<typeof loadConfig>) => c.auth.hashConcurrency, 8],
      [{ HTTP_TRUST_PROXY_HOPS: '2' }, (c: ReturnType<typeof loadConfig>) => c.http.trustProxyHops, 2],
      [{ DATABASE_POOL_SIZE: '1' }, (c: ReturnType<typeof loadConfig>) => c.database.projectConcurrency, 1],
      [{ DATABASE_POOL_SIZE: '31' }, (c: ReturnType<typeof loadConfig>) => c.database.projectConcurrency, 15],
      [{ DATABASE_PROJECT_CONCURRENCY: '10' }, (c: ReturnType<typeof loadConfig>) => c.database.projectConcurrency, 10],
      [{}, (c: ReturnType<typeof loadConfig>) => c.database.embeddedMaxQueryCost, 50_000],
      [{ DATABASE_EMBEDDED_MAX_QUERY_COST: '0' }, (c: ReturnType<typeof loadConfig>) => c.database.embeddedMaxQueryCost, 0],
      [{ METRICS_TOKEN: 'scrape-Token_0123.~+/=' }, (c: ReturnType<typeof loadConfig>) => c.metrics.token, 'scrape-Token_0123.~+/='],
      [{ MESSAGES_RETENTION_DAYS: '1' }, (c: ReturnType<typeof loadConfig>) => c.changeLog.messagesRetentionDays, 1],
      [{ MESSAGES_RETENTION_DAYS: '3650' }, (c: ReturnType<typeof loadConfig>) => c.changeLog.messagesRetentionDays, 3650],
      [{ HISTORY_RETENTION_DAYS: '1' }, (c: ReturnType<typeof loadConfig>) => c.changeLog.historyRetentionDays, 1],
      [{ HISTORY_RETENTION_DAYS: '3650' }, (c: ReturnType<typeof loadConfig>) => c.changeLog.historyRetentionDays, 3650],
      [{ CHANGE_LOG_RETENTION_INTERVAL_SECONDS: '1' }, (c: ReturnType<typeof loadConfig>) => c.changeLog.retentionIntervalSeconds, 1],
    ])('%j', (env, pick, expected) => {
      expect(pick(loadConfig(env))).toEqual(expected);
    });

    it('accepts the full host-check group and trims the lists', () => {
      const config = loadConfig({ API_DOMAIN: 'example.com', API_REGIONS: 'eu, us', API_CLOUD_PROVIDERS: 'gcp,aws ' });
      expect(config.http.apiDomain).toBe('example.com');
      expect(config.http.apiRegions).toEqual(['eu', 'us']);
      expect(config.http.apiCloudProviders).toEqual(['gcp', 'aws']);
    });
  });

  describe('bad values', () => {
    it('lists every bad variable in one ConfigError (PORT, DATABASE_POOL_SIZE, DATABASE_URL together)', () => {
      const error = configError({ PORT: 'abc', DATABASE_POOL_SIZE: '0', DATABASE_URL: 'mysql://x' });
      expect(error.message).toContain('PORT');
      expect(error.message).toContain('DATABASE_POOL_SIZE');
      expect(error.message).toContain('DATABASE_URL');
      expect(error.message).toContain("'abc'");
    });

    it('does not echo secrets of a bad DATABASE_URL', () => {
      const error = configError({ DATABASE_URL: 'mysql://admin:s3cr3t-pass@db/x' });
      expect(error.message).toContain('DATABASE_URL');
      expect(error.message).not.toContain('s3cr3t-pass');
    });

    it.each([
      ['PORT', 'abc'],
      ['PORT', '-1'],
      ['PORT', '65536'],
      ['PORT', '80.5'],
      ['HTTP_BODY_LIMIT_BYTES', '100'],
      ['HTTP_BODY_LIMIT_BYTES', `${64 * 1_048_576 + 1}`],
      ['HTTP_MAX_URL_BYTES', '1023'],
      ['HTTP_MAX_URL_BYTES', '1048577'],
      ['HTTP_HEADERS_TIMEOUT_MS', '99'],
      ['HTTP_HEADERS_TIMEOUT_MS', '20s'],
      ['HTTP_REQUEST_TIMEOUT_MS', '3600001'],
      ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '0'],
      ['DATABASE_POOL_SIZE', '0'],
      ['DATABASE_POOL_SIZE', '201'],
      ['DATABASE_STATEMENT_TIMEOUT_MS', '99'],
      ['DATABASE_MIGRATIONS_RUN', 'maybe'],
      ['DATABASE_URL', 'mysql://x'],
      ['DATABASE_URL', 'not a url'],
      ['PUBLIC_BASE_URL', 'ftp://files.example.com'],
      ['LOG_LEVEL', 'verbose'],
      ['SHUTDOWN_TIMEOUT_MS', '99'],
      ['SHUTDOWN_TIMEOUT_MS', '600001'],
      ['SHUTDOWN_TIMEOUT_MS', '5s'],
      ['METRICS_TOKEN', 'short-token'],
      ['METRICS_TOKEN', 'a token with spaces in it'],
      ['METRICS_TOKEN', 'x'.repeat(513)],
      ['MESSAGES_RETENTION_DAYS', '0'],
      ['MESSAGES_RETENTION_DAYS', '3651'],
      ['MESSAGES_RETENTION_DAYS', '7.5'],
      ['MESSAGES_RETENTION_DAYS', '15d'],
      ['HISTORY_RETENTION_DAYS', '0'],
      ['HISTORY_RETENTION_DAYS', '3651'],
      ['HISTORY_RETENTION_DAYS', '-90'],
      ['CHANGE_LOG_RETENTION_INTERVAL_SECONDS', '0'],
      ['CHANGE_LOG_RETENTION_INTERVAL_SECONDS', '86401'],
      ['CHANGE_LOG_RETENTION_INTERVAL_SECONDS', '5m'],
      ['IMAGES_BLOB_RECLAIM_DELAY_MS', '999'],
      ['IMAGES_BLOB_RECLAIM_DELAY_MS', '86400001'],
      ['RATE_LIMIT_TOKEN_PER_MINUTE', '-1'],
      ['RATE_LIMIT_TOKEN_PER_MINUTE', 'many'],
      ['AUTH_HASH_CONCURRENCY', '0'],
      ['AUTH_HASH_CONCURRENCY', '65'],
      ['HTTP_TRUST_PROXY_HOPS', '11'],
      ['HTTP_TRUST_PROXY_HOPS', 'true'],
      ['HTTP_MAX_RESPONSE_BYTES', '65535'],
      ['DATABASE_PROJECT_CONCURRENCY', '0'],
      ['DATABASE_EMBEDDED_MAX_QUERY_COST', '-1'],
      ['DATABASE_EMBEDDED_MAX_QUERY_COST', 'many'],
      ['IMAGES_MIN_BYTES_PER_SECOND', '-1'],
      ['IMAGES_MIN_BYTES_PER_SECOND', '16k'],
      ['IMAGES_MAX_DIMENSION', '0'],
      ['IMAGES_MAX_DIMENSION', '2147483648'],
      ['IMAGES_MAX_DIMENSION', '20k'],
      ['IMAGES_MAX_PIXELS', '0'],
      ['IMAGES_MAX_PIXELS', '100M'],
      ['HTTP_MAX_RESPONSE_BYTES', '1000000001'],
      ['PROJECT_MAX_RESPONSE_BYTES', '1MiB'],
      ['PROJECT_MAX_RESPONSE_BYTES', '8000000001'],
    ])('%s=%s → ConfigError naming it', (name, value) => {
      expect(configError({ [name]: value }).message).toContain(name);
    });

    it('a project concurrency above the pool size → ConfigError naming both', () => {
      const message = configError({ DATABASE_POOL_SIZE: '4', DATABASE_PROJECT_CONCURRENCY: '5' }).message;
      expect(message).toContain('DATABASE_PROJECT_CONCURRENCY: must not be greater than DATABASE_POOL_SIZE');
    });

    it('a project response budget smaller than HTTP_MAX_RESPONSE_BYTES → ConfigError naming both and the value it must reach', () => {
      expect(configError({ PROJECT_MAX_RESPONSE_BYTES: '67108863' }).message).toContain(
        'PROJECT_MAX_RESPONSE_BYTES: must not be less than HTTP_MAX_RESPONSE_BYTES (67108864)',
      );
      expect(configError({ HTTP_MAX_RESPONSE_BYTES: '200000000' }).message).toContain('PROJECT_MAX_RESPONSE_BYTES');
      expect(loadConfig({ HTTP_MAX_RESPONSE_BYTES: '200000000', PROJECT_MAX_RESPONSE_BYTES: '200000000' }).http.projectMaxResponseBytes).toBe(200_000_000);
    });

    it('a headers timeout longer than the request timeout → ConfigError naming both', () => {
      const message = configError({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '10000' }).message;
      expect(message).toContain('HTTP_HEADERS_TIMEOUT_MS: must not be greater than HTTP_REQUEST_TIMEOUT_MS');
    });

    it('SIGNING_KEY_ENCRYPTION_KEY: 32 bytes of base64 each, first encrypting; a bad one is named, never echoed', () => {
      const [a, b] = [Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 2).toString('base64url')];
      const keys = loadConfig({ SIGNING_KEY_ENCRYPTION_KEY: `${a}, ${b}` }).auth.signingKeyEncryption;
      expect(keys.map((k) => k.key)).toEqual([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]);
      expect(loadConfig({}).auth.signingKeyEncryption).toEqual([]);
      const message = configError({ SIGNING_KEY_ENCRYPTION_KEY: `${a},c2hvcnQtc2VjcmV0LWtleQ==` }).message;
      expect(message).toContain('SIGNING_KEY_ENCRYPTION_KEY');
      expect(message).not.toContain('c2hvcnQtc2VjcmV0LWtleQ');
      expect(message).not.toContain(a);
    });

    it('does not echo a bad METRICS_TOKEN', () => {
      const error = configError({ METRICS_TOKEN: 'almost-a-token but not quite' });
      expect(error.message).toContain('METRICS_TOKEN');
      expect(error.message).not.toContain('almost-a-token');
    });

    it('names each of many problems on its own line', () => {
      const error = configError({ PORT: 'x', DATABASE_POOL_SIZE: 'y', LOG_LEVEL: 'z', DATABASE_MIGRATIONS_RUN: 'w' });
      const lines = error.message.split('\n').filter((line) => line.trim().startsWith('-'));
      expect(lines).toHaveLength(4);
    });
  });

  describe('host check: all three of API_DOMAIN, API_REGIONS, API_CLOUD_PROVIDERS or none', () => {
    it.each([
      [{ API_DOMAIN: 'example.com' }],
      [{ API_REGIONS: 'eu' }],
      [{ API_CLOUD_PROVIDERS: 'gcp' }],
      [{ API_DOMAIN: 'example.com', API_REGIONS: 'eu' }],
      [{ API_DOMAIN: 'example.com', API_CLOUD_PROVIDERS: 'gcp' }],
      [{ API_REGIONS: 'eu', API_CLOUD_PROVIDERS: 'gcp' }],
      [{ API_DOMAIN: 'example.com', API_REGIONS: ' , ', API_CLOUD_PROVIDERS: 'gcp' }],
    ])('%j → ConfigError', (env) => {
      const message = configError(env).message;
      expect(message).toMatch(/API_DOMAIN/);
      expect(message).toMatch(/API_REGIONS/);
      expect(message).toMatch(/API_CLOUD_PROVIDERS/);
    });

    it('reports a partial host check together with other problems', () => {
      const message = configError({ API_DOMAIN: 'example.com', PORT: 'abc' }).message;
      expect(message).toContain('PORT');
      expect(message).toContain('API_REGIONS');
    });
  });

  describe('read replicas: DATABASE_REPLICA_URLS and DATABASE_REPLICA_MAX_LAG_MS', () => {
    const primary = 'postgres://api:secret@db-primary:5432/resource_api';

    it('reads a trimmed comma list and the lag bound', () => {
      const config = loadConfig({
        DATABASE_URL: primary,
        DATABASE_REPLICA_URLS: ' postgres://api:secret@db-replica-1:5432/resource_api , postgresql://api:secret@db-replica-2/resource_api?sslmode=require,',
        DATABASE_REPLICA_MAX_LAG_MS: '1000',
      });
      expect(config.database.replicaUrls).toEqual([
        'postgres://api:secret@db-replica-1:5432/resource_api',
        'postgresql://api:secret@db-replica-2/resource_api?sslmode=require',
      ]);
      expect(config.database.replicaMaxLagMs).toBe(1_000);
    });

    it('accepts a replica on the primary\'s host with another port, or another database', () => {
      const config = loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'postgres://api@db-primary:5433/resource_api' });
      expect(config.database.replicaUrls).toHaveLength(1);
    });

    it.each([
      ['without DATABASE_URL (the embedded database)', { DATABASE_REPLICA_URLS: 'postgres://db-replica-1/resource_api' }, 'needs DATABASE_URL'],
      ['not a PostgreSQL URL', { DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'postgres://db-replica-1/x,mysql://db-replica-2/x' }, 'URL 2 is not a postgres: or postgresql: URL'],
      ['not a URL', { DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'db-replica-1:5432' }, 'URL 1 is not'],
      ['no host', { DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'postgres:///resource_api' }, 'URL 1 is not'],
      ['the primary itself (default port spelt out)', { DATABASE_URL: 'postgres://api@db-primary/resource_api', DATABASE_REPLICA_URLS: 'postgresql://other:pw@db-primary:5432/resource_api' }, "URL 1 (db-primary:5432/resource_api) is DATABASE_URL's server itself"],
      ['one server twice', { DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'postgres://a@db-replica-1/resource_api,postgres://b@db-replica-1:5432/resource_api' }, 'URL 2 (db-replica-1:5432/resource_api) is listed twice'],
      ['more than 16', { DATABASE_URL: primary, DATABASE_REPLICA_URLS: Array.from({ length: 17 }, (_, i) => `postgres://r${i}/db`).join(',') }, 'at most 16 URLs (got 17)'],
    ])('%s → ConfigError', (_name, env, problem) => {
      expect(configError(env).message).toContain(`DATABASE_REPLICA_URLS: ${problem}`);
    });

    it('never echoes a replica URL\'s credentials', () => {
      const message = configError({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'postgres://api:s3cr3t-pass@db-primary:5432/resource_api,mysql://u:0ther-s3cret@h/x' }).message;
      expect(message).not.toContain('s3cr3t-pass');
      expect(message).not.toContain('0ther-s3cret');
    });

    it.each(['999', '3600001', '2s'])('DATABASE_REPLICA_MAX_LAG_MS=%s → ConfigError', (value) => {
      expect(configError({ DATABASE_REPLICA_MAX_LAG_MS: value }).message).toContain('DATABASE_REPLICA_MAX_LAG_MS: must be an integer from 1000 to 3600000');
    });
  });
});
