/** Classification of `pg` driver errors, so that no driver message reaches a client. */

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code && CONNECTION_CODES.has(code)) return true;
  // The last: a statement of a request still running (its client gone, so the server's close did not wait
  // for it) sent after the stopping server closed its pool.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/i.test(error.message);
}

/** SQLSTATE 57014: the statement ran into DATABASE_STATEMENT_TIMEOUT_MS and was cancelled. */
export function isStatementTimeout(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '57014';
}

/** SQLSTATE 40P01: PostgreSQL ended the statement's transaction to break a deadlock with another one. */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '40P01';
}

/** SQLSTATE class 22 (data exception): a value the client sent that PostgreSQL rejects. */
export function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.length === 5 && code.startsWith('22');
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === constraint;
}
