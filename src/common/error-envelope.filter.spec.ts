import { jest } from '@jest/globals';
import type { ArgumentsHost } from '@nestjs/common';
import { Logger, NotFoundException } from '@nestjs/common';
import pg from 'pg';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';
import { ErrorEnvelopeFilter } from './error-envelope.filter.js';

/** Renders `exception` through the filter and captures what the response received. */
function render(exception: unknown, route?: string) {
  const sent: { status?: number; headers: Record<string, string>; body?: Record<string, unknown> } = { headers: {} };
  const response = {
    sent: false,
    headers(headers: Record<string, string>) { Object.assign(sent.headers, headers); return response; },
    status(code: number) { sent.status = code; return response; },
    type() { return response; },
    send(text: string) { sent.body = JSON.parse(text); return response; },
  };
  const request = { method: 'GET', url: '/p/resource/x?a=1', routeOptions: { url: route } };
  const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }) } as unknown as ArgumentsHost;
  new ErrorEnvelopeFilter().catch(exception, host);
  return sent;
}

function connectionError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
}

describe('ErrorEnvelopeFilter', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', '57P01', '08006'])('a database connection failure (%s) → 503 ServiceUnavailable with Retry-After, no driver text', (code) => {
    const sent = render(connectionError(code));
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('5');
    expect(sent.body).toEqual({ statusCode: 503, message: expect.any(String), errors: [{ code: 'ServiceUnavailable', message: expect.any(String) }] });
    expect(JSON.stringify(sent.body)).not.toContain(code);
  });

  it('a statement sent after a stopping server closed its pool → 503 ServiceUnavailable, not a 500', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    await pool.end();
    const error = await pool.query('SELECT 1').then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const sent = render(error);
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('5');
    expect(JSON.stringify(sent.body)).not.toContain('pool');
  });

  it('a PostgreSQL data exception (class 22) → 400 InvalidInput without the driver message', () => {
    const sent = render(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }));
    expect(sent.status).toBe(400);
    expect((sent.body!.errors as { code: string }[])[0].code).toBe(ErrorCode.InvalidInput);
    expect(JSON.stringify(sent.body)).not.toContain('0x00');
  });

  it('a statement cancelled by the statement timeout (57014) → 400 QueryTimedOut without the driver message', () => {
    const sent = render(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    expect(sent.status).toBe(400);
    expect((sent.body!.errors as { code: string }[])[0].code).toBe(ErrorCode.QueryTimedOut);
    expect(JSON.stringify(sent.body)).not.toContain('canceling');
  });

  it('anything unknown → 500 General with a generic message, no stack or SQL', () => {
    const sent = render(new Error('syntax error at or near "SELECT"'));
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual({ statusCode: 500, message: 'An internal error occurred.', errors: [{ code: 'General', message: 'An internal error occurred.' }] });
  });

  it("Nest's route-not-found → 404 ResourceNotFound", () => {
    const sent = render(new NotFoundException());
    expect(sent.status).toBe(404);
    expect((sent.body!.errors as { code: string }[])[0].code).toBe('ResourceNotFound');
  });

  it('echoes small rejected values, leaves out deep ones, truncates long strings', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const sent = render(
      new DomainError([
        { code: ErrorCode.InvalidField, message: 'a', field: 'a', invalidValue: [1, 2] },
        { code: ErrorCode.InvalidField, message: 'b', field: 'b', invalidValue: deep },
        { code: ErrorCode.InvalidField, message: 'c', field: 'c', invalidValue: 'x'.repeat(5_000) },
        { code: ErrorCode.InvalidField, message: 'd', field: 'd', invalidValue: 9223372036854775807n },
      ]),
    );
    const errors = sent.body!.errors as Record<string, unknown>[];
    expect(sent.status).toBe(400);
    expect(errors[0].invalidValue).toEqual([1, 2]);
    expect('invalidValue' in errors[1]).toBe(false);
    expect((errors[2].invalidValue as string).length).toBe(1_025);
    expect(errors[3].invalidValue).toBe('9223372036854775807');
  });

  it('logs an unknown error with the route pattern, never the URL with its values and query', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      render(new Error('boom'), '/:projectKey/resource/:id');
      render(new Error('bang'));
      const lines = logged.mock.calls.map((call) => JSON.stringify(call[0]));
      expect(lines[0]).toContain('GET /:projectKey/resource/:id: Error: boom');
      expect(lines[1]).toContain('GET (unmatched): Error: bang');
      for (const line of lines) expect(line).not.toContain('a=1');
    } finally {
      logged.mockRestore();
    }
  });
});
