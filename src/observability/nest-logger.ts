import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

/** A stack trace as Nest passes it to `error(message, stack, context)`. */
/**
 * Nest's own start-up narration (a line per module initialised and per route mapped: about 70 lines):
 * logged at debug, so that the default start-up says only what an operator needs.
 */
const FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);
const STACK = /\n\s+at /;

/**
 * Nest's LoggerService over the service's pino logger: start-up, migrations, "listening on" and
 * every `new Logger(context)` line become JSON lines with `context`, at LOG_LEVEL. An object
 * message is logged as fields (`msg` is its text), an Error as `err`.
 */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    this.write(typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    for (const param of params) {
      if (typeof param !== 'string') continue;
      if (STACK.test(param)) fields.stack = param;
      else fields.context = param;
    }
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      const { msg, ...rest } = message as Record<string, unknown>;
      this.logger[level]({ ...fields, ...rest }, typeof msg === 'string' ? msg : '');
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
