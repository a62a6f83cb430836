import { configSection } from './env-reader.js';

/** The HTTP server: where it listens, its limits, the host check, CORS, the graceful stop. */
export interface HttpConfig {
  port: number;
  host: string;
  bodyLimitBytes: number;
  /** A request refused before its body was read (no valid token): the connection closes after reading at most this of it. */
  unauthenticatedMaxBodyBytes: number;
  /** Largest list answer built (query, search): its items past this → 400 InvalidInput. */
  maxResponseBytes: number;
  /**
   * The list answers one project builds and sends at once hold at most this together; a request past it
   * waits for its turn (503 after 5 s). At least `maxResponseBytes`, so that the largest answer fits.
   */
  projectMaxResponseBytes: number;
  /** Longest request target (path and query, as sent) → 414; the request line and headers may take 16 KiB more. */
  maxUrlBytes: number;
  /** A request whose headers are not all received within this is cut (408): slowloris. */
  headersTimeoutMs: number;
  /** A request not wholly received (headers and body) within this is cut (408): slow bodies. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Host check (docs/rules.md#addressing-and-input): all three set → `Host` must be `api.<region>.<provider>.<domain>`. */
  apiDomain?: string;
  apiRegions: string[];
  apiCloudProviders: string[];
  publicBaseUrl?: string;
  corsOrigins: string[];
  /** After SIGTERM/SIGINT: how long in-flight requests may run before their connections are cut. */
  shutdownTimeoutMs: number;
  /**
   * Proxies in front of the server whose `X-Forwarded-For` entries are trusted (0: none, the peer is
   * the client). Decides the remote address the token endpoints' limits count by.
   */
  trustProxyHops: number;
}

export const httpConfig = configSection('http', (read): HttpConfig => {
  const http: HttpConfig = {
    port: read.int('PORT', 8080, 0, 65535),
    host: read.string('HOST', '0.0.0.0'),
    bodyLimitBytes: read.int('HTTP_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    unauthenticatedMaxBodyBytes: read.int('HTTP_UNAUTHENTICATED_MAX_BODY_BYTES', 16_384, 0, 64 * 1_048_576),
    maxUrlBytes: read.int('HTTP_MAX_URL_BYTES', 65_536, 1024, 1_048_576),
    maxResponseBytes: read.int('HTTP_MAX_RESPONSE_BYTES', 64 * 1_048_576, 65_536, 1_000_000_000),
    projectMaxResponseBytes: read.int('PROJECT_MAX_RESPONSE_BYTES', 128 * 1_048_576, 65_536, 8_000_000_000),
    headersTimeoutMs: read.int('HTTP_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    keepAliveTimeoutMs: read.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    apiDomain: read.string('API_DOMAIN'),
    apiRegions: read.list('API_REGIONS'),
    apiCloudProviders: read.list('API_CLOUD_PROVIDERS'),
    publicBaseUrl: read.url('PUBLIC_BASE_URL', ['http:', 'https:']),
    corsOrigins: read.list('HTTP_CORS_ORIGINS'),
    shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    trustProxyHops: read.int('HTTP_TRUST_PROXY_HOPS', 0, 0, 10),
  };
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    read.problems.push('HTTP_HEADERS_TIMEOUT_MS: must not be greater than HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  if (http.projectMaxResponseBytes < http.maxResponseBytes) {
    read.problems.push(
      `PROJECT_MAX_RESPONSE_BYTES: must not be less than HTTP_MAX_RESPONSE_BYTES (${http.maxResponseBytes}): the largest list answer must fit in a project's share`,
    );
  }
  const hostCheck = [http.apiDomain, http.apiRegions.length, http.apiCloudProviders.length];
  if (hostCheck.some(Boolean) && !hostCheck.every(Boolean)) {
    read.problems.push('API_DOMAIN, API_REGIONS and API_CLOUD_PROVIDERS: set all three or none');
  }
  return http;
});
