import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassThrough, type Readable } from 'node:stream';
import { DomainError, type ErrorDetail } from '../../common/domain-error.js';
import { isDatabaseUnavailable, isDataException } from '../../common/database-errors.js';
import { describeJsonError, parseJson, toJsonText } from '../../common/lossless-json.js';
import type { Principal } from '../../common/principal.js';
import { findUnstorableText } from '../../common/storable-text.js';
import { validateBody } from '../../common/validation/validation.pipe.js';
import { httpConfig, type HttpConfig } from '../../config/http.config.js';
import { ExtensionGate } from '../../extensions/extension-gate.js';
import { extensionsConfig, type ExtensionsConfig } from '../../extensions/extensions.config.js';
import { ExtendedWrites, type PlannedWrite } from '../extended-writes.js';
import { storedResource } from '../resource-preview.js';
import { KeyedObjectTestTypeDraftDto } from '../resource.dto.js';
import type { ImportedRow } from './bulk.repository.js';
import { bulkConfig, type BulkConfig } from './bulk.config.js';
import { BulkErrors } from './bulk.errors.js';
import { BulkRepository, type ImportDraft } from './bulk.repository.js';
import { NDJSON } from './bulk.dto.js';
import { BodyInterruptedError, ndjsonLines, type NdjsonEnd, type NdjsonLine } from './ndjson-lines.js';

/** Lines written by one statement at most. */
export const IMPORT_BATCH_SIZE = 500;
/** A batch is written once it is this old even when not full, so a slow body still gets its answers. */
const BATCH_MAX_AGE_MS = 50;
/** How far the answer may run ahead of a client that does not read it while it sends (docs/bulk-and-cli.md#import). */
const RESULTS_AHEAD_BYTES = 1_048_576;
/** How often a line whose key another writer keeps inserting or deleting is tried (as a PUT is). */
const WRITE_ATTEMPTS = 5;
/**
 * An import that wrote at least this many resources refreshes the planner's statistics before its summary
 * (BulkRepository.analyze): a table loaded faster than autovacuum notices keeps the statistics of a small
 * one, and an export right after then read each page by scanning and sorting the whole project (200,000
 * resources just imported: 187 ms a page and 13,700 resources/s in SQL, against 10 ms and 76,900/s after).
 */
export const ANALYZE_AFTER_WRITES = 10_000;

const NDJSON_TYPE = /^application\/x-ndjson\s*(?:;|$)/i;

/** The body of POST /{projectKey}/resource/import as the request carries it (see `@ImportBody()`). */
export interface ImportRequestBody {
  contentType?: string;
  contentLength?: number;
  /** The raw body; undefined when the request has none. */
  stream?: Readable;
}

/** One line's answer: `{line, status, id?, version?, unchanged?, errors?}`. */
interface LineResult {
  line: number;
  status: 201 | 200 | 400 | 409 | 500 | 502 | 503 | 504;
  id?: string;
  version?: number;
  unchanged?: true;
  errors?: ErrorDetail[];
}

type Counts = { lines: number; created: number; updated: number; unchanged: number; failed: number };

/**
 * POST /{projectKey}/resource/import (docs/bulk-and-cli.md): each line a PUT by key, validated by the very DTO
 * of PUT, written in batches of up to IMPORT_BATCH_SIZE lines by one statement each (BULK_SQL.importBatch),
 * answered line by line in the body's order as each batch commits.
 *
 * What is refused before anything is answered: a Content-Type other than application/x-ndjson (415), a
 * Content-Length over IMPORT_MAX_BYTES (413), a body without a single non-blank line (400). After that the
 * answer is 200 and streams. Each batch is one statement, so each line is written wholly or not at all, and
 * a line is answered only once its batch has committed: a client that goes away leaves written exactly
 * the lines of the batches that committed (the answered ones, and at most the one batch in flight); the
 * lines read after are not written. A line with text the database cannot store is refused before it joins
 * a batch; a batch refused anyway is written again line by line, so one line never costs the others.
 */
@Injectable()
export class ImportService {
  private readonly logger = new Logger('Import');

  constructor(
    private readonly bulk: BulkRepository,
    @Inject(bulkConfig.KEY) private readonly config: BulkConfig,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
    private readonly gate: ExtensionGate,
    private readonly extended: ExtendedWrites,
    @Inject(extensionsConfig.KEY) private readonly extensionsConfig: ExtensionsConfig,
  ) {}

  async import(projectKey: string, body: ImportRequestBody, by: Principal): Promise<Readable> {
    const maxBytes = this.config.importMaxBytes;
    if (!NDJSON_TYPE.test(body.contentType ?? '')) {
      throw BulkErrors.unsupportedType(body.contentType, NDJSON);
    }
    if (body.contentLength !== undefined && body.contentLength > maxBytes) throw BulkErrors.tooLarge(maxBytes);
    const { importIdleTimeoutMs: idleTimeoutMs } = this.config;
    const lines = ndjsonLines(body.stream ?? emptyBody(), { maxLineBytes: this.http.bodyLimitBytes, maxBytes, idleTimeoutMs });
    let first: IteratorResult<NdjsonLine, NdjsonEnd>;
    try {
      first = await lines.next();
    } catch (error) {
      if (error instanceof BodyInterruptedError) throw BulkErrors.interrupted(error.message);
      throw error;
    }
    if (first.done) {
      if (first.value.reason === 'limit') throw BulkErrors.tooLarge(maxBytes);
      if (first.value.reason === 'stalled') throw BulkErrors.stalled(idleTimeoutMs);
      throw BulkErrors.noLine(NDJSON);
    }
    const run = new ImportRun(projectKey, by, this.bulk, this.logger, this.config, { gate: this.gate, writes: this.extended, concurrency: this.extensionsConfig.importConcurrency });
    void run.run(first.value, lines);
    return run.output;
  }
}


async function* emptyBody(): AsyncGenerator<Buffer> {}

/** What an import needs to call extensions. */
interface ImportExtensions {
  gate: ExtensionGate;
  writes: ExtendedWrites;
  /** EXTENSIONS_IMPORT_CONCURRENCY. */
  concurrency: number;
}

/** A line waiting for its batch: its draft, or its answer when it was refused before any write. */
interface Entry {
  line: number;
  draft?: ImportDraft;
  result?: LineResult;
}

const IDLE = Symbol('idle');

/** One import: reads lines, writes batches, answers in line order. */
class ImportRun {
  readonly output = new PassThrough({ highWaterMark: RESULTS_AHEAD_BYTES });
  private readonly counts: Counts = { lines: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
  private entries: Entry[] = [];
  private keys = new Set<string>();
  private batchStarted = 0;
  private gone = false;

  constructor(
    private readonly projectKey: string,
    private readonly by: Principal,
    private readonly bulk: BulkRepository,
    private readonly logger: Logger,
    private readonly config: BulkConfig,
    private readonly extensions: ImportExtensions,
  ) {
    this.output.once('close', () => {
      this.gone = true;
    });
  }

  async run(first: NdjsonLine, lines: AsyncGenerator<NdjsonLine, NdjsonEnd>): Promise<void> {
    try {
      this.add(first);
      let next = settled(lines.next());
      let idle: Promise<typeof IDLE> | undefined;
      for (;;) {
        if (this.entries.length > 0 && !idle) idle = delay(Math.max(0, this.batchStarted + BATCH_MAX_AGE_MS - Date.now()));
        const step = idle ? await Promise.race([next, idle]) : await next;
        if (this.gone) return void lines.return({ reason: 'end' });
        if (step === IDLE) {
          idle = undefined;
          await this.flush();
          continue;
        }
        if (step.done) {
          await this.flush();
          await this.refreshStatistics();
          if (step.value.reason !== 'end') {
            // The answer ends with the error instead of the summary; the connection closes after it.
            const error = step.value.reason === 'limit' ? BulkErrors.tooLarge(this.config.importMaxBytes) : BulkErrors.stalled(this.config.importIdleTimeoutMs);
            const message = `${error.message} The lines after line ${step.value.lastLine} were not read.`;
            await this.write(`${JSON.stringify({ statusCode: error.status, message, errors: [{ ...error.errors[0], message }] })}\n`);
          } else {
            await this.write(`${JSON.stringify({ summary: this.counts })}\n`);
          }
          this.output.end();
          return;
        }
        next = settled(lines.next());
        if (this.add(step.value)) {
          idle = undefined;
          await this.flush();
        }
      }
    } catch (error) {
      // The client went away mid-body (nothing more is written, the lines read since the last batch
      // included), or a fault outside the writes (a refused write is its line's result): the answer ends
      // without its summary.
      if (error instanceof BodyInterruptedError) return void this.output.destroy();
      this.logger.error(`Import into ${this.projectKey} stopped: ${error instanceof Error ? error.stack : String(error)}`);
      this.output.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** After a large import (ANALYZE_AFTER_WRITES): the statistics, or a warning; the import's answer stands either way. */
  private async refreshStatistics(): Promise<void> {
    if (this.counts.created + this.counts.updated < ANALYZE_AFTER_WRITES) return;
    try {
      await this.bulk.analyze();
    } catch (error) {
      this.logger.warn(`statistics not refreshed after an import into ${this.projectKey}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Takes a line into the batch; true when the batch must be written now (full, or the line's key repeats one in it). */
  private add(line: NdjsonLine): boolean {
    if (this.entries.length === 0) this.batchStarted = Date.now();
    this.counts.lines++;
    const parsed = parseLine(line);
    if (parsed instanceof DomainError) {
      this.entries.push({ line: line.number, result: { line: line.number, status: 400, errors: parsed.errors } });
      return this.entries.length >= IMPORT_BATCH_SIZE;
    }
    if (this.keys.has(parsed.key)) {
      // The earlier line of the key is written first: the later one wins, both are answered.
      this.pendingRepeat = { line: line.number, draft: parsed };
      return true;
    }
    this.keys.add(parsed.key);
    this.entries.push({ line: line.number, draft: parsed });
    return this.entries.length >= IMPORT_BATCH_SIZE;
  }

  /** A line whose key was already in the batch: it starts the next one. */
  private pendingRepeat?: Entry;

  /** Writes the batch, answers its lines in order, and starts the next batch. */
  private async flush(): Promise<void> {
    const entries = this.entries;
    this.entries = [];
    this.keys = new Set();
    if (entries.length > 0) await this.writeBatch(entries);
    const repeat = this.pendingRepeat;
    if (repeat) {
      this.pendingRepeat = undefined;
      this.batchStarted = Date.now();
      this.entries.push(repeat);
      this.keys.add(repeat.draft!.key);
    }
  }

  /**
   * Writes the batch's drafts and answers its lines in order. A statement the database refuses wrote
   * nothing (it is one statement), so its lines are then written one by one: a value no check foresaw
   * costs its own line alone, and the import goes on to its summary.
   */
  private async writeBatch(entries: Entry[]): Promise<void> {
    const drafts = entries.filter((e) => e.draft);
    try {
      await this.writeLines(drafts);
    } catch (error) {
      this.logger.warn(`An import batch into ${this.projectKey} failed (${describeError(error)}); its ${drafts.length} lines are written one by one.`);
      for (const entry of drafts) {
        if (entry.result) continue;
        try {
          await this.writeLines([entry]);
        } catch (lineError) {
          entry.result = this.failedLine(entry.line, lineError);
        }
      }
    }
    let text = '';
    for (const entry of entries) {
      const result = entry.result!;
      if (result.status === 201) this.counts.created++;
      else if (result.unchanged) this.counts.unchanged++;
      else if (result.status === 200) this.counts.updated++;
      else this.counts.failed++;
      text += `${result.errors ? toJsonText(result) : JSON.stringify(result)}\n`;
    }
    await this.write(text);
  }

  /**
   * Writes drafts (docs/extensions.md#imports). In a project with extensions, the stored resources of the
   * lines' keys are read first (one statement): each line is then a create or an overwrite of the version
   * read, and the extensions that apply to it are called, at most EXTENSIONS_IMPORT_CONCURRENCY lines at
   * once; such a line is written on its own with the actions they add (or answered with their refusal).
   * The other lines go in the batch statement as decided: a create only if the key is still free, an
   * overwrite only of the version read (409 otherwise, as a line whose extensions were called). Throws
   * only when the batch statement fails; each line called about has its result.
   */
  private async writeLines(entries: Entry[]): Promise<void> {
    const extensions = await this.extensions.gate.of(this.projectKey);
    if (!extensions.triggers.Create && !extensions.triggers.Update) return this.writeDrafts(entries);
    const stored = new Map((await this.bulk.importCurrent(this.projectKey, entries.map((e) => e.draft!))).map((row) => [row.n, row]));
    const batch: Entry[] = [];
    const called: Array<{ entry: Entry; plan: PlannedWrite }> = [];
    for (const [i, entry] of entries.entries()) {
      const draft = entry.draft!;
      const current = stored.get(i + 1);
      // Unchanged, or of another version: no write, the statement answers it.
      if (current && (current.unchanged || (draft.expectedVersion !== undefined && draft.expectedVersion !== current.version))) {
        batch.push(entry);
        continue;
      }
      const plan = this.extensions.writes.plan(extensions, current && storedResource(current.json), { key: draft.key, objectTypeProperty: draft.value, publish: draft.publish }, this.by);
      if (plan.applying.length > 0) {
        called.push({ entry, plan });
      } else {
        draft.expectedVersion = current?.version ?? 0;
        batch.push(entry);
      }
    }
    const [written] = await Promise.allSettled([this.writeDrafts(batch), this.writeCalled(called)]);
    if (written.status === 'rejected') throw written.reason;
  }

  /** The lines whose extensions apply, at most EXTENSIONS_IMPORT_CONCURRENCY at once, each with its result. */
  private async writeCalled(called: Array<{ entry: Entry; plan: PlannedWrite }>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < called.length) {
        const { entry, plan } = called[next++];
        try {
          const written = await this.extensions.writes.write(this.projectKey, plan, this.by);
          entry.result = { line: entry.line, status: written.created ? 201 : 200, id: written.id, version: plan.kind === 'Update' ? plan.version + 1 : 1 };
        } catch (error) {
          entry.result = error instanceof DomainError ? { line: entry.line, status: error.status as LineResult['status'], errors: error.errors } : this.failedLine(entry.line, error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.extensions.concurrency, called.length) }, worker));
  }

  /** Writes drafts by one statement, again for the creates another writer's insert got in the way of; sets each entry's result. */
  private async writeDrafts(drafts: Entry[]): Promise<void> {
    let pending = drafts;
    for (let attempt = 1; pending.length > 0; attempt++) {
      let rows: ImportedRow[];
      try {
        rows = await this.bulk.importBatch(this.projectKey, pending.map((e) => e.draft!), this.by);
      } catch (error) {
        // Two imports inserting the same new keys in different orders: the database cancels one statement.
        if (isDeadlock(error) && attempt < WRITE_ATTEMPTS) continue;
        throw error;
      }
      const retry: Entry[] = [];
      for (const row of rows) {
        const entry = pending[row.n - 1];
        const result = lineResult(entry.line, row);
        if (result) entry.result = result;
        else if (attempt < WRITE_ATTEMPTS) retry.push(entry);
        else entry.result = { line: entry.line, status: 409, errors: BulkErrors.keyChurn().errors };
      }
      pending = retry;
    }
  }

  /** The answer to a line the database refused on its own: a value it cannot store is the line's 400, anything else its failure. */
  private failedLine(line: number, error: unknown): LineResult {
    let refusal: DomainError;
    if (isDataException(error)) {
      refusal = BulkErrors.lineUnstorableValue();
    } else if (isDatabaseUnavailable(error)) {
      refusal = BulkErrors.databaseUnavailable();
    } else {
      this.logger.error(`An import line into ${this.projectKey} failed: ${error instanceof Error ? error.stack : String(error)}`);
      refusal = BulkErrors.lineFailed();
    }
    return { line, status: refusal.status as LineResult['status'], errors: refusal.errors };
  }

  /** Writes to the answer; waits while the client has more than RESULTS_AHEAD_BYTES of it unread. */
  private async write(text: string): Promise<void> {
    if (this.gone) return;
    if (this.output.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.output.off('drain', done);
        this.output.off('close', done);
        resolve();
      };
      this.output.once('drain', done);
      this.output.once('close', done);
    });
  }
}

/** The answer to a line the statement decided; undefined for a create another writer's insert got in the way of. */
function lineResult(line: number, row: ImportedRow): LineResult | undefined {
  switch (row.action) {
    case 'create':
      return row.written ? { line, status: 201, id: row.id!, version: row.version! } : undefined;
    case 'update':
      return { line, status: 200, id: row.id!, version: row.version! };
    case 'unchanged':
      return { line, status: 200, id: row.id!, version: row.version!, unchanged: true };
    case 'conflict':
      return { line, status: 409, errors: DomainError.concurrentModification(row.version!).errors };
  }
}

/** A line as a validated draft (the rules of PUT /resource, stated once by its DTO), or why it is not one. */
function parseLine(line: NdjsonLine): ImportDraft | DomainError {
  if (line.text === undefined) {
    return BulkErrors.lineTooLong(line.bytes);
  }
  let value: unknown;
  try {
    value = parseJson(line.text);
  } catch (error) {
    return BulkErrors.lineNotJson(describeJsonError(line.text, error));
  }
  // Valid JSON the database cannot store: refused here, so that the line never joins (and fails) a batch.
  const unstorable = findUnstorableText(line.text, value);
  if (unstorable) {
    const where = unstorable.path ? `${unstorable.path} holds` : 'The line holds';
    return BulkErrors.lineUnstorableText(`${where} ${unstorable.problem}.`);
  }
  try {
    const draft = validateBody(KeyedObjectTestTypeDraftDto, value);
    return {
      key: draft.key,
      objectTypeProperty: toJsonText(draft.objectTypeProperty),
      publish: draft.publish ?? true,
      expectedVersion: draft.version,
      value: draft.objectTypeProperty,
    };
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

/** A driver error in a log line: its SQLSTATE and message. */
function describeError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

function isDeadlock(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '40P01' || code === '40001';
}

/** The promise, marked as handled: a line still being read when the import stops must not become an unhandled rejection. */
function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

function delay(ms: number): Promise<typeof IDLE> {
  return new Promise((resolve) => setTimeout(() => resolve(IDLE), ms));
}
