import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { HttpConfig } from '../config/http.config.js';

/**
 * Security headers on every answer, as helmet writes them: `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`, `Cross-Origin-Opener-Policy` and
 * `Cross-Origin-Resource-Policy: same-origin`, … and, for the API's JSON, the strictest
 * Content-Security-Policy: `default-src 'none'; frame-ancestors 'none'` (an API answer is never a
 * page). `Strict-Transport-Security` only when PUBLIC_BASE_URL is https (TLS ends in front of the
 * service; over plain HTTP a browser ignores it anyway): one year, without `includeSubDomains`, which
 * would bind every host of the operator's domain.
 */
function apiHeaderOptions(http: HttpConfig): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: http.publicBaseUrl?.startsWith('https:') ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  };
}

/**
 * The headers helmet's middleware sets for `options`, computed once. (`@fastify/helmet` builds the
 * middleware anew on every request: measured on GET by id, 50 connections, peak RSS 150 → 200–250 MB.)
 */
function headersOf(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}

/** Route config (`@DeclareRoute`) of the image bytes: other origins' pages may show them in `<img>`. */
export const CROSS_ORIGIN_RESOURCE = { securityHeaders: 'cross-origin-resource' } as const;

type Variant = 'api' | 'docs' | (typeof CROSS_ORIGIN_RESOURCE)['securityHeaders'];

/** The Swagger page and its assets (served by @nestjs/swagger from swagger-ui-dist). */
const isDocs = (url: string) => url === '/docs' || url.startsWith('/docs/');

/**
 * Prepares the security headers: the Swagger routes get the page's policy (`DocsPolicy`); answers
 * which headers a request's answer gets (`onRequest` sets them, so error answers get them too).
 */
export function prepareSecurityHeaders(fastify: FastifyInstance, http: HttpConfig): (request: FastifyRequest) => Record<string, string> {
  const api = headersOf(apiHeaderOptions(http));
  const { 'content-security-policy': _csp, ...docs } = api;
  const variants: Record<Variant, Record<string, string>> = {
    api,
    docs,
    'cross-origin-resource': { ...api, 'cross-origin-resource-policy': 'cross-origin' },
  };
  const docsPolicy = new DocsPolicy(http);
  fastify.addHook('onRoute', (route) => {
    if (!isDocs(route.url)) return;
    route.config = { ...route.config, securityHeaders: 'docs' } as RouteOptions['config'];
    route.onSend = [...[route.onSend ?? []].flat(), docsPolicy.onSend];
  });
  return (request) => variants[(request.routeOptions.config as { securityHeaders?: Variant }).securityHeaders ?? 'api'];
}

/** The `<style>` Swagger UI's script inserts (the colours of its logo), as swagger-ui-dist 5 writes it. */
const SWAGGER_UI_STYLES = ['.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}'];

/**
 * The Swagger page's Content-Security-Policy. The page (@nestjs/swagger's template) loads its scripts
 * from this server, runs no inline script, and has two inline `<style>` elements and one `style`
 * attribute; Swagger UI adds one `<style>` of its own (its logo). Those are allowed by their SHA-256
 * (the page's computed from the page as served), and nothing else inline. Swagger UI fetches the
 * document, the token and "Try it out" answers from this server, or from PUBLIC_BASE_URL and the
 * templated `https://api.<region>.<provider>.<API_DOMAIN>` servers the document lists; it shows
 * images from `data:` and `blob:` URLs (an image answer of "Try it out").
 */
class DocsPolicy {
  private readonly connectSources: string;
  private readonly byPage = new Map<string, string>();

  constructor(http: HttpConfig) {
    const sources = ["'self'"];
    if (http.publicBaseUrl) sources.push(new URL(http.publicBaseUrl).origin);
    if (http.apiDomain) sources.push(`https://*.${http.apiDomain}`);
    this.connectSources = sources.join(' ');
  }

  readonly onSend = (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void => {
    const page = typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html') ? payload : '';
    reply.header('content-security-policy', this.policyFor(page));
    done(null, payload);
  };

  private policyFor(page: string): string {
    let policy = this.byPage.get(page);
    if (policy === undefined) {
      policy = this.build(page);
      // The page is the same string on every request (two variants: /docs and /docs/).
      if (this.byPage.size < 8) this.byPage.set(page, policy);
    }
    return policy;
  }

  private build(page: string): string {
    const elements = [...page.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]);
    const attributes = [...page.matchAll(/\sstyle="([^"]*)"/gi)].map((m) => m[1]);
    const hashes = [...new Set([...elements, ...attributes, ...SWAGGER_UI_STYLES].map(sha256))];
    const styles = ["'self'", ...(attributes.length > 0 ? ["'unsafe-hashes'"] : []), ...hashes].join(' ');
    return [
      "default-src 'none'",
      "script-src 'self'",
      `style-src ${styles}`,
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      `connect-src ${this.connectSources}`,
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
    ].join('; ');
  }
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}
