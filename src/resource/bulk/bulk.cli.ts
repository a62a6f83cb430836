import { createReadStream, statSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform, type TransformCallback } from 'node:stream';
import { parseCommandLine } from '../../common/command-line.js';
import cliProgress from 'cli-progress';
import { parseJson, toJsonText } from '../../common/lossless-json.js';

/*
 * `npm run cli -- export|import …` (docs/bulk-and-cli.md): the operator's wrapper of GET /{projectKey}/resource/export
 * and POST /{projectKey}/resource/import against a running server, over HTTP with an API client's id and
 * secret. Progress goes to stderr (a bar on a terminal, a line every few seconds otherwise); stdout carries
 * the export, or the import's result lines.
 */

const EXPORT_USAGE = `Usage:
  npm run cli -- export --url <base> --project <key> [--where <predicate>]… [--var <name>=<value>]… > file.ndjson

Streams the project's resources (those matching every --where, in the query language of
sorted-query-parameters) to stdout as NDJSON: one resource per line as GET by id answers it, ordered by id,
then {"summary":{"count":N}}. Exit code 0 when the export is whole (its summary line arrived), 1 otherwise.

Options:
  --url <base>             the server, e.g. http://localhost:8080
  --project <key>          the project key
  --where <predicate>      repeatable; ANDed
  --var <name>=<value>     binds :name in --where; repeatable (a repeated name is a list)
  --client-id, --client-secret
                           an API client with view_test or manage_test on the project
                           (default: RESOURCE_API_CLIENT_ID, RESOURCE_API_CLIENT_SECRET)
  --progress-interval <s>  seconds between progress lines when stderr is not a terminal (default 5)
  -h, --help`;

const IMPORT_USAGE = `Usage:
  npm run cli -- import --url <base> --project <key> <file.ndjson> > results.ndjson

Streams the file to POST /{projectKey}/resource/import: one draft {key, objectTypeProperty, publish?, version?}
per line, each a PUT by key. A line of an export (a resource as GET by id shows it) is sent as its draft
{key, objectTypeProperty, publish}, and an export's summary line as a blank line, so an export imports as it
is; line numbers stay those of the file. The server's result lines go to stdout. Exit code 0 only when the
import finished (its summary arrived) and no line failed; 1 otherwise.

Options:
  --url <base>             the server, e.g. http://localhost:8080
  --project <key>          the project key
  --client-id, --client-secret
                           an API client with manage_test on the project
                           (default: RESOURCE_API_CLIENT_ID, RESOURCE_API_CLIENT_SECRET)
  --progress-interval <s>  seconds between progress lines when stderr is not a terminal (default 5)
  -h, --help`;

/** A problem the operator must fix (bad options, refused credentials): exit code 2 for usage, 1 otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const COMMON_OPTIONS = {
  url: { type: 'string' },
  project: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'progress-interval': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface Connection {
  base: URL;
  project: string;
  authorization: string;
}

export async function exportCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseCommandLine({ args: argv, options: { ...COMMON_OPTIONS, where: { type: 'string', multiple: true }, var: { type: 'string', multiple: true } } });
  if (values.help) return usage(EXPORT_USAGE, 0);
  const connection = await connect(options(values, env, EXPORT_USAGE));
  const query = new URLSearchParams();
  for (const where of values.where ?? []) query.append('where', where);
  for (const binding of values.var ?? []) {
    const eq = binding.indexOf('=');
    if (eq < 1) throw new CliError(`--var ${binding}: expected <name>=<value>\n\n${EXPORT_USAGE}`, 2);
    query.append(`var.${binding.slice(0, eq)}`, binding.slice(eq + 1));
  }
  const path = `${connection.base.pathname.replace(/\/$/, '')}/${connection.project}/resource/export${query.size ? `?${query}` : ''}`;
  const response = await send(connection.base, { method: 'GET', path, headers: { Authorization: connection.authorization } });
  if (response.statusCode !== 200) throw new CliError(`The export was refused: ${response.statusCode} ${await readAll(response)}`);
  const progress = new Progress('export', 'resources', intervalOf(values['progress-interval']));
  let tail = '';
  let lines = 0;
  response.setEncoding('utf8');
  for await (const chunk of response as AsyncIterable<string>) {
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
    tail = (tail + chunk).slice(-200);
    progress.update(lines);
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  const last = tail.trimEnd().split('\n').pop() ?? '';
  const whole = response.complete && /^\{"summary":\{"count":\d+\}\}$/.test(last);
  // The summary line is not a resource.
  progress.stop(whole ? lines - 1 : lines);
  if (!whole) {
    process.stderr.write('The export is incomplete: it ended without its summary line.\n');
    return 1;
  }
  process.stderr.write(`${last}\n`);
  return 0;
}

export async function importCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseCommandLine({ args: argv, allowPositionals: true, options: COMMON_OPTIONS });
  if (values.help) return usage(IMPORT_USAGE, 0);
  if (positionals.length !== 1) throw new CliError(`Name one file to import.\n\n${IMPORT_USAGE}`, 2);
  const file = positionals[0];
  const given = options(values, env, IMPORT_USAGE);
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const connection = await connect(given);
  const path = `${connection.base.pathname.replace(/\/$/, '')}/${connection.project}/resource/import`;
  // The bar's whole: the file's lines (a first quick pass), so it shows the share answered, not merely sent.
  const progress = new Progress('import', 'lines', intervalOf(values['progress-interval']), await countLines(file, size));
  const source = createReadStream(file);
  const drafts = source.pipe(new ExportToDrafts());
  const { request, response: responded } = open(connection.base, {
    method: 'POST',
    path,
    headers: { Authorization: connection.authorization, 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' },
  });
  // The answer is read while the body is still being sent: the server answers each batch as it commits.
  drafts.pipe(request);
  const response = await responded;
  if (response.statusCode !== 200) {
    source.destroy();
    throw new CliError(`The import was refused: ${response.statusCode} ${await readAll(response)}`);
  }
  let summary: { failed: number } | undefined;
  let failed = 0;
  let answered = 0;
  let buffered = '';
  response.setEncoding('utf8');
  for await (const chunk of response as AsyncIterable<string>) {
    buffered += chunk;
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) {
      if (!line) continue;
      const result = JSON.parse(line) as { status?: number; summary?: { failed: number }; statusCode?: number; message?: string };
      if (result.summary) summary = result.summary;
      else if (result.statusCode) process.stderr.write(`\nThe import stopped: ${result.message}\n`);
      else {
        answered++;
        if (result.status !== 200 && result.status !== 201) failed++;
      }
    }
    progress.update(answered);
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  progress.stop(answered);
  if (!summary) {
    process.stderr.write(`The import is incomplete: ${answered} lines answered (${failed} failed) before the answer ended without its summary.\n`);
    return 1;
  }
  process.stderr.write(`${JSON.stringify({ summary })}\n`);
  return summary.failed === 0 ? 0 : 1;
}

/**
 * Export lines made drafts: a resource as GET by id shows it (it has `id` and `createdAt`) becomes
 * `{key, objectTypeProperty, publish}`, the summary line a blank line; any other line is sent as it is
 * (the server answers it). 64-bit integers stay exact (lossless parsing).
 */
class ExportToDrafts extends Transform {
  private rest = '';

  constructor() {
    super({ decodeStrings: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const text = this.rest + chunk.toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      this.rest = text;
      return callback();
    }
    this.rest = text.slice(end + 1);
    callback(null, text.slice(0, end + 1).split('\n').slice(0, -1).map(toDraft).join('\n') + '\n');
  }

  override _flush(callback: TransformCallback): void {
    callback(null, this.rest ? toDraft(this.rest) : '');
  }
}

function toDraft(line: string): string {
  if (!line.startsWith('{"')) return line;
  if (/^\{"summary":\{/.test(line)) return '';
  if (!line.includes('"createdAt"')) return line;
  let value: unknown;
  try {
    value = parseJson(line);
  } catch {
    return line;
  }
  const resource = value as { id?: unknown; createdAt?: unknown; key?: unknown; objectTypeProperty?: unknown; published?: unknown };
  if (typeof resource !== 'object' || resource === null || typeof resource.id !== 'string' || resource.createdAt === undefined) return line;
  return toJsonText({ key: resource.key, objectTypeProperty: resource.objectTypeProperty, publish: resource.published });
}

/** Lines of a file: its newlines, plus a last line without one. */
async function countLines(file: string, size: number): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    last = chunk[chunk.length - 1];
  }
  return size > 0 && last !== 10 ? lines + 1 : lines;
}

function usage(text: string, code: number): number {
  process.stderr.write(`${text}\n`);
  return code;
}

function intervalOf(option: string | undefined): number {
  const seconds = option === undefined ? 5 : Number(option);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError('--progress-interval: a number of seconds > 0', 2);
  return seconds * 1000;
}

interface Options {
  base: URL;
  project: string;
  clientId: string;
  clientSecret: string;
}

/** The server, the project and the client's credentials, all required (exit code 2 when one is missing). */
function options(
  values: { url?: string; project?: string; 'client-id'?: string; 'client-secret'?: string },
  env: NodeJS.ProcessEnv,
  usageText: string,
): Options {
  const clientId = values['client-id'] ?? env.RESOURCE_API_CLIENT_ID;
  const clientSecret = values['client-secret'] ?? env.RESOURCE_API_CLIENT_SECRET;
  if (!values.url || !values.project || !clientId || !clientSecret) {
    throw new CliError(`--url, --project and the client's id and secret are required.\n\n${usageText}`, 2);
  }
  try {
    return { base: new URL(values.url), project: values.project, clientId, clientSecret };
  } catch {
    throw new CliError(`--url ${values.url}: not a URL`, 2);
  }
}

async function connect({ base, project, clientId, clientSecret }: Options): Promise<Connection> {
  const path = `${base.pathname.replace(/\/$/, '')}/oauth/token`;
  const body = 'grant_type=client_credentials';
  const response = await send(
    base,
    {
      method: 'POST',
      path,
      headers: {
        Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': Buffer.byteLength(body),
      },
    },
    body,
  );
  const text = await readAll(response);
  if (response.statusCode !== 200) throw new CliError(`No token for this client: ${response.statusCode} ${text}`);
  const token = (JSON.parse(text) as { access_token: string }).access_token;
  return { base, project, authorization: `Bearer ${token}` };
}

function open(base: URL, options: RequestOptions) {
  const request = (base.protocol === 'https:' ? httpsRequest : httpRequest)({ host: base.hostname, port: base.port || undefined, ...options });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', (error) => reject(new CliError(`${base.origin}: ${error.message}`)));
  });
  return { request, response };
}

function send(base: URL, options: RequestOptions, body?: string): Promise<IncomingMessage> {
  const { request, response } = open(base, options);
  request.end(body);
  return response;
}

async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  response.setEncoding('utf8');
  for await (const chunk of response as AsyncIterable<string>) text += chunk;
  return text;
}

/** Progress on stderr: a bar (the share of the file's lines answered, for an import) on a terminal, else a line every interval. */
class Progress {
  private readonly started = Date.now();
  private readonly bar?: cliProgress.SingleBar;
  private lastLine = Date.now();
  private count = 0;

  constructor(
    private readonly name: string,
    private readonly unit: string,
    private readonly intervalMs: number,
    private readonly total?: number,
  ) {
    if (process.stderr.isTTY) {
      const format =
        total === undefined
          ? `${name} {count} ${unit} | {rate}/s | {duration_formatted}`
          : `${name} [{bar}] {percentage}% | {count} ${unit} | {rate}/s | {duration_formatted}`;
      this.bar = new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true, etaBuffer: 50 }, cliProgress.Presets.shades_classic);
      this.bar.start(Math.max(1, total ?? 1), 0, { count: 0, rate: 0 });
    }
  }

  /** Lines done so far. */
  update(count: number): void {
    this.count = count;
    this.render();
  }

  stop(count: number): void {
    this.count = count;
    if (this.bar) {
      this.bar.update(Math.max(1, this.total ?? 1), this.payload());
      this.bar.stop();
    } else {
      process.stderr.write(`${this.describe()}\n`);
    }
  }

  private payload() {
    return { count: this.count, rate: Math.round(this.count / Math.max(0.001, (Date.now() - this.started) / 1000)) };
  }

  private render(): void {
    if (this.bar) {
      this.bar.update(this.total === undefined ? 0 : Math.min(this.count, this.total), this.payload());
      return;
    }
    if (Date.now() - this.lastLine < this.intervalMs) return;
    this.lastLine = Date.now();
    process.stderr.write(`${this.describe()}\n`);
  }

  private describe(): string {
    const { count, rate } = this.payload();
    const elapsed = Math.round((Date.now() - this.started) / 1000);
    const share = this.total ? `, ${Math.min(100, Math.floor((100 * this.count) / this.total))}% of the file's lines` : '';
    return `${this.name}: ${count} ${this.unit}, ${rate}/s, ${elapsed} s elapsed${share}`;
  }
}
