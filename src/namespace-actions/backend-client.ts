import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, fetch, type Response } from 'undici';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { parseJson } from '../common/lossless-json.js';
import type { HostPolicy } from '../outbound/host-policy.js';
import { failureDetail, OutboundReason, outboundReason } from '../outbound/outbound-failure.js';
import { OutboundPolicy } from '../outbound/outbound-policy.service.js';
import { passableBackendHeaders } from './http-headers.js';

/** What a namespace action answers: status, extra headers and a JSON body as text. */
export interface ActionAnswer {
  status: number;
  headers: Record<string, string>;
  json: string;
}

interface BackendRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** Largest backend answer relayed (10 MiB); a larger one is a 502. */
const MAX_BACKEND_ANSWER_BYTES = 10 * 1_048_576;

class AnswerTooLarge extends Error {}

/**
 * Calls the backend of a `forward` handler (docs/rules.md#namespace-actions). The backend's 2xx and 4xx answers are
 * relayed (status, JSON body, headers other than hop-by-hop and security-relevant ones; 204 and 205
 * become 200 `null`); a 5xx, a redirect, an answer that is not JSON, or a backend that cannot be
 * reached → 502 BadGateway; no complete answer within the timeout → 504 GatewayTimeout. Messages
 * never name the backend: its address is the operator's business, not the caller's.
 *
 * The backend's URL is the operator's (ACTIONS_FILE), so the list of allowed hosts, which is about
 * the hosts a project names, does not bind it; the hosts never allowed (link-local, "this host") do:
 * the host is checked before the call and resolved through the policy's lookup (undici's fetch with
 * an Agent of its own), so a name cannot turn into a metadata address between the two.
 */
@Injectable()
export class BackendClient implements OnApplicationShutdown {
  private readonly logger = new Logger('NamespaceActions');
  private readonly hosts: HostPolicy;
  private readonly agent: Agent;

  constructor(outbound: OutboundPolicy) {
    this.hosts = outbound.for('operator');
    this.agent = new Agent({ connect: { lookup: this.hosts.lookup } });
  }

  async call(request: BackendRequest): Promise<ActionAnswer> {
    const verdict = await this.hosts.check(request.url.hostname);
    if ('refusal' in verdict) throw this.badGateway(request, verdict.refusal === OutboundReason.hostNotAllowed ? 'host not allowed' : 'could not be reached', verdict.detail);
    const signal = AbortSignal.timeout(request.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal,
        redirect: 'manual',
        dispatcher: this.agent,
      });
      text = await readLimited(response, MAX_BACKEND_ANSWER_BYTES);
    } catch (error) {
      if (signal.aborted || (error as Error)?.name === 'TimeoutError') {
        this.logger.warn(`${request.method} ${request.url.origin}${request.url.pathname}: no answer within ${request.timeoutMs} ms`);
        throw DomainError.of(ErrorCode.GatewayTimeout, `The backend of this action did not answer within ${request.timeoutMs} ms.`);
      }
      if (error instanceof AnswerTooLarge) throw this.badGateway(request, `answered more than ${MAX_BACKEND_ANSWER_BYTES} bytes`);
      throw this.badGateway(request, outboundReason(error) === OutboundReason.hostNotAllowed ? 'host not allowed' : 'could not be reached', failureDetail(error));
    }
    const status = response.status;
    if (status >= 500) throw this.badGateway(request, `answered ${status}`);
    if (status < 200 || status >= 300 && status < 400) throw this.badGateway(request, `answered an unexpected ${status}`);
    let json = text.trim() === '' ? 'null' : text;
    try {
      parseJson(json);
    } catch {
      throw this.badGateway(request, 'answered a body that is not JSON');
    }
    if (status === 204 || status === 205) json = 'null';
    return { status: status === 204 || status === 205 ? 200 : status, headers: passableBackendHeaders(response.headers.entries()), json };
  }

  /** 502 naming no address; the log says which backend and, for the operator, what answered. */
  private badGateway(request: BackendRequest, what: string, detail?: string): DomainError {
    this.logger.warn(`${request.method} ${request.url.origin}${request.url.pathname}: the backend ${what}${detail ? ` (${detail})` : ''}`);
    return DomainError.of(ErrorCode.BadGateway, what === 'host not allowed' ? 'The backend of this action is not an allowed host.' : `The backend of this action ${what}.`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }
}

async function readLimited(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
