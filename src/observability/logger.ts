import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './observability.config.js';
import { pathOf } from '../common/error-envelope.filter.js';

/** LOG_LEVEL (Nest's names) → pino's level. */
const PINO_LEVEL = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' } as const;

/**
 * Defence in depth: no line logs headers or bodies (the serializers below list what they keep), but
 * should a field of these names ever reach a log object, its value is replaced.
 */
const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'client_secret',
  'access_token',
  'password',
  'secret',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'body.client_secret',
  'body.token',
  'body.access_token',
];

/**
 * The service's one logger: JSON lines on stdout (`{"level":"info","time":"…","msg":"…",…}`) at
 * LOG_LEVEL. Fastify logs through it (every request line carries `reqId`) and so does Nest
 * (`NestLogger`). Serializers keep an allow-list of fields: a request is its method, path (no
 * query) and remote address, never its headers; an error is its type, code, message and stack,
 * never the driver's other fields (TypeORM's carry the statement's parameters).
 */
export function createLogger(level: LogLevel, destination: DestinationStream = stdout()): Logger {
  return pino(
    {
      level: PINO_LEVEL[level],
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: {
        req: (req: { method?: string; url?: string; ip?: string }) => ({ method: req.method, url: pathOf(req.url ?? ''), remoteAddress: req.ip }),
        res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
        err: serializeError,
      },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks: {
        // Fastify announces each address it listens on; the server's own line ("listening on …") says it once.
        logMethod(args, method) {
          if (typeof args[0] === 'string' && args[0].startsWith('Server listening at ')) return;
          method.apply(this, args);
        },
      },
    },
    destination,
  );
}

/**
 * stdout, written asynchronously: a write is under way while the next lines gather, so under load one
 * write carries many lines (measured alone: a line written synchronously to a pipe took about 14 µs,
 * asynchronously about 6 µs). Pino flushes what is left when the process exits. A stdout nobody reads
 * stops taking lines past 16 MiB waiting (they are dropped) rather than growing without bound.
 */
function stdout(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, maxLength: 16 * 1_048_576 });
}

function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code } = error as { code?: unknown };
  return { type: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message, stack: error.stack };
}
