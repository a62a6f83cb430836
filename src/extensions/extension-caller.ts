import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { parseJson } from '../common/lossless-json.js';
import { METRICS_REGISTRY } from '../observability/metrics-registry.js';
import { HostVerdicts } from '../outbound/host-verdicts.js';
import { failureDetail } from '../outbound/outbound-failure.js';
import { OutboundPolicy } from '../outbound/outbound-policy.service.js';
import { TIMEOUT_CEILING_MS } from './extension.dto.js';

/** An extension as the caller needs it. */
export interface CallTarget {
  id: string;
  key: string | null;
  url: string;
  /** The URL's host name, whose verdict every call checks. */
  host: string;
  /** The `Authorization` header's value, if any: never logged, never answered. */
  authorization?: string;
  timeoutInMs: number;
}

/** What an extension's answer means for the write (docs/extensions.md#answers). */
export type CallOutcome =
  | { outcome: 'ok' }
  | { outcome: 'actions'; actions: unknown[] }
  | { outcome: 'refused'; errors: Array<Record<string, unknown>> }
  | { outcome: 'bad_response'; statusCode?: number; body?: string }
  | { outcome: 'no_response' };

export type Outcome = CallOutcome['outcome'];

/** The largest answer body read; a longer one is a bad response. */
export const MAX_ANSWER_BYTES = 1_048_576;
/** At most this much of a bad answer's body is passed on (`extensionBody`). */
const MAX_QUOTED_BYTES = 4_096;
/** At most this many update actions in one answer. */
export const MAX_EXTENSION_ACTIONS = 100;
const ERROR_CODES = new Set(['InvalidInput', 'InvalidOperation']);
const ERROR_MEMBERS = new Set(['code', 'message', 'localizedMessage', 'extensionExtraInfo']);

/**
 * Calls extensions (docs/extensions.md#the-call): a POST of the write's body to the extension's URL, through
 * the outbound policy like webhooks (the host is checked before any connection, and connections go only to
 * the addresses checked), on undici keep-alive connections (one Agent: a pool per origin), within the
 * extension's `timeoutInMs`. The answer is read up to 1 MiB and classified into the outcomes docs/extensions.md
 * lists; every call is counted, timed and logged with the request id, never with its credentials.
 */
@Injectable()
export class ExtensionCaller implements OnApplicationShutdown {
  private readonly logger = new Logger('Extensions');
  private readonly agent: Agent;
  private readonly verdicts: HostVerdicts;
  private readonly calls: Counter<'outcome'>;
  private readonly duration: Histogram<'outcome'>;

  constructor(outbound: OutboundPolicy, @Inject(METRICS_REGISTRY) registry: Registry) {
    const policy = outbound.for('project');
    this.verdicts = new HostVerdicts(policy);
    this.agent = new Agent({ connect: { lookup: policy.lookup, timeout: TIMEOUT_CEILING_MS }, keepAliveTimeout: 30_000, connections: 128, pipelining: 1 });
    const registers = [registry];
    this.calls = new Counter({
      name: 'extension_calls_total',
      help: 'Extension calls by outcome: ok, actions, refused, bad_response, no_response.',
      labelNames: ['outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'extension_call_duration_seconds',
      help: 'From sending an extension call to having its whole answer (or giving up), by outcome.',
      labelNames: ['outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }

  /** Why the URL's host may not be called (one of the outbound reasons), or undefined; checked anew. */
  async refusal(url: string): Promise<string | undefined> {
    const verdict = await this.verdicts.check(new URL(url).hostname, true);
    return 'refusal' in verdict ? verdict.refusal : undefined;
  }

  async call(target: CallTarget, body: string, requestId: string): Promise<CallOutcome> {
    const started = performance.now();
    let result: CallOutcome;
    let detail: string | undefined;
    try {
      const verdict = await this.verdicts.check(target.host);
      if ('refusal' in verdict) {
        detail = verdict.detail;
        result = { outcome: 'no_response' };
      } else {
        result = await this.send(target, body, requestId);
      }
    } catch (error) {
      detail = failureDetail(error);
      result = { outcome: 'no_response' };
    }
    const seconds = (performance.now() - started) / 1000;
    this.calls.inc({ outcome: result.outcome });
    this.duration.observe({ outcome: result.outcome }, seconds);
    const status = result.outcome === 'bad_response' && result.statusCode !== undefined ? ` (HTTP ${result.statusCode})` : '';
    this.logger.log(`extension ${target.id}: ${result.outcome}${status} in ${Math.round(seconds * 1000)} ms; request ${requestId}${detail ? `; ${detail}` : ''}`);
    return result;
  }

  private async send(target: CallTarget, body: string, requestId: string): Promise<CallOutcome> {
    const timeout = target.timeoutInMs;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-correlation-id': requestId };
    if (target.authorization !== undefined) headers.authorization = target.authorization;
    // A timer cleared once the answer is read: `AbortSignal.timeout`'s fires (and aborts) after every call,
    // long after its answer, which cost as much CPU as the call's own timer work.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException('The extension did not answer in time.', 'TimeoutError')), timeout);
    try {
      const response = await request(target.url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: deadline.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        headers,
        body,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          response.body.destroy();
          return { outcome: 'bad_response', statusCode: response.statusCode, body: quote(Buffer.concat(chunks).toString('utf8')) };
        }
        chunks.push(chunk);
      }
      return classify(response.statusCode, Buffer.concat(chunks).toString('utf8'));
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }
}

/** An answer (status and body text) as an outcome (docs/extensions.md#answers). */
export function classify(statusCode: number, text: string): CallOutcome {
  const bad = (): CallOutcome => ({ outcome: 'bad_response', statusCode, body: quote(text) });
  if (statusCode !== 200 && statusCode !== 201 && statusCode !== 400) return bad();
  if (statusCode !== 400 && text.trim() === '') return { outcome: 'ok' };
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    return bad();
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return bad();
  const members = Object.keys(json);
  if (statusCode === 400) {
    const errors = (json as { errors?: unknown }).errors;
    if (members.length !== 1 || !Array.isArray(errors) || errors.length === 0 || !errors.every(isExtensionError)) return bad();
    return { outcome: 'refused', errors: errors as Array<Record<string, unknown>> };
  }
  if (members.length === 0) return { outcome: 'ok' };
  const actions = (json as { actions?: unknown }).actions;
  if (members.length !== 1 || !Array.isArray(actions) || actions.length > MAX_EXTENSION_ACTIONS) return bad();
  return actions.length === 0 ? { outcome: 'ok' } : { outcome: 'actions', actions };
}

function isExtensionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return false;
  const e = error as Record<string, unknown>;
  if (!Object.keys(e).every((m) => ERROR_MEMBERS.has(m))) return false;
  if (!ERROR_CODES.has(e.code as string) || typeof e.message !== 'string') return false;
  const isObject = (v: unknown) => v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v));
  return isObject(e.localizedMessage) && isObject(e.extensionExtraInfo);
}

/** At most MAX_QUOTED_BYTES of a body, cut on a character boundary. */
function quote(text: string): string {
  if (Buffer.byteLength(text) <= MAX_QUOTED_BYTES) return text;
  return Buffer.from(text).subarray(0, MAX_QUOTED_BYTES).toString('utf8').replace(/\uFFFD$/, '');
}
