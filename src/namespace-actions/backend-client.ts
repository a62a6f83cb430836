import { Injectable, Logger } from '@nestjs/common';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { parseJson } from '../common/lossless-json.js';
import { passableBackendHeaders } from './http-headers.js';

/** What a namespace action answers: status, extra headers and a JSON body as text. */
export interface ActionAnswer {
  status: number;
  headers: Record<string, string>;
  json: string;
}

export interface BackendRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** Largest backend answer relayed (10 MiB); a larger one is a 502. */
export const MAX_BACKEND_ANSWER_BYTES = 10 * 1_048_576;

class AnswerTooLarge extends Error {}

/**
 * Calls the backend of a `forward` handler (CONTRACT.md §8). The backend's 2xx and 4xx answers are
 * relayed (status, JSON body, headers other than hop-by-hop and security-relevant ones; 204 and 205
 * become 200 `null`); a 5xx, a redirect, an answer that is not JSON, or a backend that cannot be
 * reached → 502 BadGateway; no complete answer within the timeout → 504 GatewayTimeout. Messages
 * never name the backend: its address is the operator's business, not the caller's.
 */
@Injectable()
export class BackendClient {
  private readonly logger = new Logger('NamespaceActions');

  async call(request: BackendRequest): Promise<ActionAnswer> {
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
      });
      text = await readLimited(response, MAX_BACKEND_ANSWER_BYTES);
    } catch (error) {
      if (signal.aborted || (error as Error)?.name === 'TimeoutError') {
        this.logger.warn(`${request.method} ${request.url.origin}${request.url.pathname}: no answer within ${request.timeoutMs} ms`);
        throw DomainError.of(ErrorCode.GatewayTimeout, `The backend of this action did not answer within ${request.timeoutMs} ms.`);
      }
      if (error instanceof AnswerTooLarge) throw this.badGateway(request, `answered more than ${MAX_BACKEND_ANSWER_BYTES} bytes`);
      throw this.badGateway(request, `could not be reached (${describe(error)})`);
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

  private badGateway(request: BackendRequest, what: string): DomainError {
    this.logger.warn(`${request.method} ${request.url.origin}${request.url.pathname}: the backend ${what}`);
    const reason = what.startsWith('could not be reached') ? 'could not be reached' : what;
    return DomainError.of(ErrorCode.BadGateway, `The backend of this action ${reason}.`);
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
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
