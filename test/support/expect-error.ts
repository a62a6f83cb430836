/** What a supertest answer carries, as far as the error checks need it. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
  text?: string;
}

/** Text that must never reach a client: SQL, driver and ORM names, stack frames. */
const INTERNALS = [
  /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/i,
  /\bWHERE\b/,
  /jsonb/i,
  /\$\d+::/,
  /syntax error at or near/i,
  /violates (unique|check|foreign key|not-null) constraint/i,
  /duplicate key value/i,
  /invalid input syntax|invalid byte sequence|unsupported Unicode escape/i,
  /relation "[^"]+"/i,
  /\bpg\b|pg_|postgres|pglite|typeorm|QueryFailedError/i,
  /"stack"/,
  /\bat [\w.<>]+ \(.*:\d+:\d+\)/,
];

const ENVELOPE = ['errors', 'message', 'statusCode'];
const OAUTH_MEMBERS = ['error', 'error_description'];

/**
 * The error envelope: JSON `{statusCode, message, errors: [{code, message, …}]}`
 * with `status` and, when given, `errors[0].code` equal to `code` (or one of them); OAuth errors may
 * add `error` (the code, or the OAuth error its status calls for) and `error_description`; nothing
 * internal anywhere in the text.
 */
export function expectErrorEnvelope(res: Answer, status: number, code?: string | readonly string[]): void {
  const body = res.body ?? {};
  const actual = body.errors?.[0]?.code;
  const codes = code === undefined ? undefined : typeof code === 'string' ? [code] : code;
  expect({ status: res.status, code: codes && codes.includes(actual) ? codes[0] : actual }).toEqual({ status, code: codes ? codes[0] : actual });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const extra = Object.keys(body).filter((key) => !ENVELOPE.includes(key));
  expect(extra.filter((key) => !OAUTH_MEMBERS.includes(key))).toEqual([]);
  if ('error' in body) expect(body.error).toBe(oauthErrorOf(actual, status));
  expect(body.statusCode).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(Array.isArray(body.errors) && body.errors.length > 0).toBe(true);
  for (const error of body.errors) {
    expect(typeof error.code).toBe('string');
    expect(typeof error.message).toBe('string');
  }
  expectNoInternals(res);
}

/**
 * The OAuth `error` an answer with this code carries: the code itself for OAuth's own codes (snake
 * case); for the others (the token endpoints' 413, 415, 429, 503…), the one their status calls for.
 */
function oauthErrorOf(code: string, status: number): string {
  if (/^[a-z_]+$/.test(code)) return code;
  if (status === 429 || status === 503) return 'temporarily_unavailable';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

/** Nothing internal (SQL, driver or ORM names, stack frames) anywhere in an answer's text. */
export function expectNoInternals(res: Answer): void {
  const text = res.text ?? JSON.stringify(res.body);
  for (const pattern of INTERNALS) expect(text).not.toMatch(pattern);
}

/** `errors[0].code` of an answer, if any. */
export function errorCode(res: Answer): string | undefined {
  return (res.body as { errors?: Array<{ code?: string }> } | undefined)?.errors?.[0]?.code;
}
