import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { NestLogger } from './nest-logger.js';

/** The service's pino logger and Nest's adapter over it, writing to a captured stream. */
function capture(level: Parameters<typeof createLogger>[0]) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger(level, stream);
  return { logger, nest: new NestLogger(logger), lines };
}

describe('createLogger', () => {
  it.each([
    ['error', ['error']],
    ['warn', ['error', 'warn']],
    ['log', ['error', 'warn', 'info']],
    ['debug', ['error', 'warn', 'info', 'debug']],
  ] as const)('LOG_LEVEL=%s writes %j', (level, written) => {
    const { logger, lines } = capture(level);
    logger.error('e');
    logger.warn('w');
    logger.info('i');
    logger.debug('d');
    logger.trace('t');
    expect(lines.map((line) => line.level)).toEqual(written);
  });

  it('writes JSON lines with the level name, an ISO time and msg', () => {
    const { logger, lines } = capture('log');
    logger.info({ reqId: 'r-1' }, 'hello');
    expect(lines[0]).toEqual({ level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), pid: process.pid, hostname: expect.any(String), reqId: 'r-1', msg: 'hello' });
  });

  it('a request is its method, path without the query and remote address: never a header', () => {
    const { logger, lines } = capture('log');
    const req = { method: 'POST', url: '/oauth/token?client_secret=s3cret', ip: '127.0.0.1', headers: { authorization: 'Basic czNjcmV0', cookie: 'sid=1' } };
    logger.info({ req }, 'request');
    expect(lines[0].req).toEqual({ method: 'POST', url: '/oauth/token', remoteAddress: '127.0.0.1' });
    expect(JSON.stringify(lines)).not.toMatch(/s3cret|czNjcmV0|sid=1/);
  });

  it('an error is its type, code, message and stack: not the fields a driver or ORM adds', () => {
    const { logger, lines } = capture('log');
    const error = Object.assign(new Error('query failed'), { code: '23505', parameters: ['s3cret-value'], query: 'INSERT …' });
    logger.error({ err: error }, 'failed');
    expect(lines[0].err).toEqual({ type: 'Error', code: '23505', message: 'query failed', stack: expect.stringContaining('query failed') });
    expect(JSON.stringify(lines)).not.toContain('s3cret-value');
  });

  it('redacts secret-named fields should one reach a log object', () => {
    const { logger, lines } = capture('log');
    logger.info({ client_secret: 'a', authorization: 'b', headers: { authorization: 'c', cookie: 'd' }, body: { client_secret: 'e', token: 'f' } }, 'x');
    expect(lines[0]).toMatchObject({
      client_secret: '[redacted]',
      authorization: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      body: { client_secret: '[redacted]', token: '[redacted]' },
    });
  });
});

describe('NestLogger', () => {
  it('maps Nest levels and writes the context', () => {
    const { nest, lines } = capture('debug');
    nest.log('started', 'Server');
    nest.warn('slow', 'Database');
    nest.debug('detail', 'Auth');
    nest.verbose('hidden', 'Auth');
    nest.fatal('down', 'Server');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', context: 'Server', msg: 'started' }),
      expect.objectContaining({ level: 'warn', context: 'Database', msg: 'slow' }),
      expect.objectContaining({ level: 'debug', context: 'Auth', msg: 'detail' }),
      expect.objectContaining({ level: 'fatal', context: 'Server', msg: 'down' }),
    ]);
  });

  it("logs Nest's own start-up narration (modules initialised, routes mapped) at debug, the rest of log() at info", () => {
    const { nest, lines } = capture('log');
    for (const context of ['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']) nest.log('narration', context);
    nest.log('listening on http://0.0.0.0:8080', 'Server');
    expect(lines).toEqual([expect.objectContaining({ level: 'info', context: 'Server', msg: 'listening on http://0.0.0.0:8080' })]);
    const verbose = capture('debug');
    verbose.nest.log('Mapped {/x, GET} route', 'RouterExplorer');
    expect(verbose.lines).toEqual([expect.objectContaining({ level: 'debug', context: 'RouterExplorer' })]);
  });

  it('error(message, stack, context) keeps the stack as a field; an Error as err; an object as fields', () => {
    const { nest, lines } = capture('log');
    nest.error('boom', 'Error: boom\n    at f (file.js:1:1)', 'ExceptionHandler');
    nest.error(new Error('thrown'), 'Server');
    nest.error({ reqId: 'r-9', msg: 'GET /x: failed' }, 'Errors');
    expect(lines[0]).toMatchObject({ level: 'error', context: 'ExceptionHandler', msg: 'boom', stack: 'Error: boom\n    at f (file.js:1:1)' });
    expect(lines[1]).toMatchObject({ level: 'error', context: 'Server', msg: 'thrown', err: { type: 'Error', message: 'thrown' } });
    expect(lines[2]).toMatchObject({ level: 'error', context: 'Errors', reqId: 'r-9', msg: 'GET /x: failed' });
  });

  it('respects LOG_LEVEL', () => {
    const { nest, lines } = capture('warn');
    nest.log('not written', 'X');
    nest.debug('not written', 'X');
    nest.warn('written', 'X');
    expect(lines.map((line) => line.msg)).toEqual(['written']);
  });
});
