import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseJson } from '../common/lossless-json.js';
import { PROJECT_KEY_PATTERN } from '../common/project-key.js';
import {
  ACTION_ENDPOINTS,
  type ActionDeclaration,
  type ActionEndpoint,
  type ActionHandler,
  endpointName,
} from './action-declaration.js';
import { HEADER_NAME, HEADER_VALUE, reservedAnswerHeader, reservedBackendHeader } from './http-headers.js';
import { jsonText } from './json-value.js';

/*
 * The ACTIONS_FILE (JSON or YAML) and its validation, pure but for `loadActionsFile` reading the file.
 * Every problem is reported with the entry it concerns (`actions[2] (GET namespace-action)`) and why,
 * all at once, so a bad file stops start-up with a message the operator can act on.
 *
 *   actions:
 *     - method: GET
 *       path: namespace-action-with-headers
 *       projects: [shop-a]            # optional; absent → every project
 *       handler: { type: forward, url: https://backend.internal/carts, timeoutMs: 3000,
 *                  headers: { X-Api-Key: secret }, forwardHeaders: [Accept-Language] }
 */

/** Entries of one ACTIONS_FILE. */
const MAX_DECLARATIONS = 1_000;
export const MAX_TIMEOUT_MS = 600_000;
const STORE_KEY = /^[A-Za-z0-9._:-]{1,256}$/;
const HANDLER_TYPES = ['static', 'store', 'forward'] as const;
/** Statuses a static answer may declare: every answer has a JSON body, so never 204, 205 or 304. */
const NO_BODY_STATUSES = [204, 205, 304];

export class ActionsFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Reads and validates the file; throws ActionsFileError with every problem. */
export function loadActionsFile(file: string): ActionDeclaration[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ActionsFileError([`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  const format = formatOf(file);
  if (!format) throw new ActionsFileError([`${file}: the name must end in .json, .yaml or .yml`]);
  try {
    return parseActions(text, format);
  } catch (error) {
    if (error instanceof ActionsFileError) throw new ActionsFileError(error.problems.map((problem) => `${file}: ${problem}`));
    throw error;
  }
}

export function formatOf(file: string): 'json' | 'yaml' | undefined {
  const extension = extname(file).toLowerCase();
  return extension === '.json' ? 'json' : extension === '.yaml' || extension === '.yml' ? 'yaml' : undefined;
}

/** Parses the text of an actions file and validates it. */
export function parseActions(text: string, format: 'json' | 'yaml'): ActionDeclaration[] {
  let document: unknown;
  try {
    document = format === 'json' ? parseJson(text) : fromYaml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ActionsFileError([`not valid ${format === 'json' ? 'JSON' : 'YAML'}: ${message}`]);
  }
  return validateActions(document);
}

/** YAML integers as exact numbers (beyond 2^53 as `bigint`, like the JSON reader). */
function fromYaml(text: string): unknown {
  return normaliseIntegers(parseYaml(text, { intAsBigInt: true, maxAliasCount: 100 }));
}

function normaliseIntegers(value: unknown): unknown {
  if (typeof value === 'bigint') {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : value;
  }
  if (Array.isArray(value)) return value.map(normaliseIntegers);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, normaliseIntegers(member)]));
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a parsed actions document `{actions: [...]}`; throws ActionsFileError with every problem. */
export function validateActions(document: unknown): ActionDeclaration[] {
  const problems: string[] = [];
  if (!isObject(document)) throw new ActionsFileError(['the file must hold an object with an "actions" array']);
  for (const name of Object.keys(document)) {
    if (name !== 'actions') problems.push(`${name}: unknown member (the file holds only "actions")`);
  }
  const entries = document.actions;
  if (!Array.isArray(entries)) {
    problems.push('actions: must be an array');
    throw new ActionsFileError(problems);
  }
  if (entries.length > MAX_DECLARATIONS) {
    problems.push(`actions: at most ${MAX_DECLARATIONS} declarations`);
    throw new ActionsFileError(problems);
  }
  const checked: Array<{ index: number; declaration: ActionDeclaration }> = [];
  entries.forEach((entry, index) => {
    const declaration = checkDeclaration(entry, index, problems);
    if (declaration) checked.push({ index, declaration });
  });
  problems.push(...overlaps(checked));
  if (problems.length > 0) throw new ActionsFileError(problems);
  return checked.map(({ declaration }) => declaration);
}

/** `actions[2] (GET namespace-action)`: how problems name an entry. */
function label(entry: unknown, index: number): string {
  const method = isObject(entry) && typeof entry.method === 'string' ? entry.method.toUpperCase() : '?';
  const path = isObject(entry) && typeof entry.path === 'string' ? normalisePath(entry.path) : '?';
  return `actions[${index}] (${method} ${path})`;
}

/** `namespace-action`, `/namespace-action` and `/{projectKey}/resource/namespace-action` name one path. */
function normalisePath(path: string): string {
  return path.replace(/^\/?(?:\{projectKey\}\/resource\/)?/, '').replace(/\/$/, '');
}

function checkDeclaration(entry: unknown, index: number, problems: string[]): ActionDeclaration | undefined {
  const where = label(entry, index);
  const before = problems.length;
  const problem = (field: string, reason: string) => problems.push(`${where}: ${field}: ${reason}`);
  if (!isObject(entry)) {
    problems.push(`${where}: must be an object with method, path and handler`);
    return undefined;
  }
  unknownMembers(entry, ['method', 'path', 'projects', 'handler'], '', problem);
  let endpoint: ActionEndpoint | undefined;
  if (typeof entry.method !== 'string') problem('method', 'required, a string (GET, POST or PUT)');
  if (typeof entry.path !== 'string') problem('path', 'required, a string');
  if (typeof entry.method === 'string' && typeof entry.path === 'string') {
    const method = entry.method.toUpperCase();
    const path = normalisePath(entry.path);
    endpoint = ACTION_ENDPOINTS.find((e) => e.method === method && e.path === path);
    if (!endpoint) {
      problem('method and path', `no namespace-action endpoint is ${method} ${path}; the endpoints are ${ACTION_ENDPOINTS.map(endpointName).join(', ')}`);
    }
  }
  let projects: string[] | undefined;
  if (entry.projects !== undefined) {
    if (!Array.isArray(entry.projects) || entry.projects.length === 0) {
      problem('projects', 'must be a non-empty array of project keys (leave it out for every project)');
    } else {
      entry.projects.forEach((key, i) => {
        if (typeof key !== 'string' || !PROJECT_KEY_PATTERN.test(key)) problem(`projects[${i}]`, 'must be a project key: 2 to 36 characters of a-z, 0-9 and -');
      });
      projects = [...new Set(entry.projects as string[])];
    }
  }
  const handler = checkHandler(entry.handler, endpoint, problem);
  if (problems.length > before || !endpoint || !handler) return undefined;
  return { method: endpoint.method, path: endpoint.path, ...(projects ? { projects } : {}), handler };
}

type Problem = (field: string, reason: string) => void;

function unknownMembers(object: Record<string, unknown>, allowed: string[], path: string, problem: Problem): void {
  for (const name of Object.keys(object)) {
    if (!allowed.includes(name)) problem(`${path}${name}`, `unknown member (allowed: ${allowed.join(', ')})`);
  }
}

function checkHandler(value: unknown, endpoint: ActionEndpoint | undefined, problem: Problem): ActionHandler | undefined {
  if (!isObject(value)) {
    problem('handler', `required, an object with a type (${HANDLER_TYPES.join(', ')})`);
    return undefined;
  }
  switch (value.type) {
    case 'static':
      return checkStatic(value, problem);
    case 'store':
      return checkStore(value, endpoint, problem);
    case 'forward':
      return checkForward(value, problem);
    default:
      problem('handler.type', `must be one of ${HANDLER_TYPES.join(', ')}`);
      return undefined;
  }
}

function checkStatic(value: Record<string, unknown>, problem: Problem): ActionHandler | undefined {
  unknownMembers(value, ['type', 'status', 'headers', 'body'], 'handler.', problem);
  const status = value.status ?? 200;
  const statusOk = typeof status === 'number' && Number.isInteger(status) && status >= 200 && status <= 599 && !NO_BODY_STATUSES.includes(status);
  if (!statusOk) problem('handler.status', 'must be an integer from 200 to 599 other than 204, 205 and 304 (every answer has a JSON body)');
  const headers = checkHeaderMap(value.headers, 'handler.headers', reservedAnswerHeader, problem);
  const body = jsonText(value.body === undefined ? null : value.body);
  if ('problem' in body) problem('handler.body', body.problem);
  if (!statusOk || !headers || 'problem' in body) return undefined;
  return { type: 'static', status: status as number, headers, body: body.text };
}

function checkStore(value: Record<string, unknown>, endpoint: ActionEndpoint | undefined, problem: Problem): ActionHandler | undefined {
  unknownMembers(value, ['type', 'key'], 'handler.', problem);
  const key = value.key ?? endpoint?.path;
  if (typeof key !== 'string' || !STORE_KEY.test(key)) {
    problem('handler.key', 'must be 1 to 256 characters of A-Z, a-z, 0-9 and . _ : -');
    return undefined;
  }
  return { type: 'store', key };
}

function checkForward(value: Record<string, unknown>, problem: Problem): ActionHandler | undefined {
  unknownMembers(value, ['type', 'url', 'timeoutMs', 'headers', 'forwardHeaders'], 'handler.', problem);
  let ok = true;
  const url = value.url;
  if (typeof url !== 'string' || !isBackendUrl(url)) {
    problem('handler.url', 'required, an absolute http or https URL without credentials or fragment');
    ok = false;
  }
  const timeoutMs = value.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS)) {
    problem('handler.timeoutMs', `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
    ok = false;
  }
  const headers = checkHeaderMap(value.headers, 'handler.headers', (name) => reservedBackendHeader(name, false), problem);
  const forwardHeaders: string[] = [];
  if (value.forwardHeaders !== undefined) {
    if (!Array.isArray(value.forwardHeaders)) {
      problem('handler.forwardHeaders', 'must be an array of header names');
      ok = false;
    } else {
      value.forwardHeaders.forEach((name, i) => {
        const reason = typeof name !== 'string' || !HEADER_NAME.test(name) ? 'must be a header name' : reservedBackendHeader(name, true);
        if (reason) {
          problem(`handler.forwardHeaders[${i}]`, reason);
          ok = false;
        } else {
          forwardHeaders.push((name as string).toLowerCase());
        }
      });
    }
  }
  if (!ok || !headers) return undefined;
  return { type: 'forward', url: url as string, ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs as number } : {}), headers, forwardHeaders: [...new Set(forwardHeaders)] };
}

function isBackendUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.hash && !text.includes('#');
  } catch {
    return false;
  }
}

function checkHeaderMap(
  value: unknown,
  path: string,
  reserved: (name: string) => string | undefined,
  problem: Problem,
): Record<string, string> | undefined {
  if (value === undefined) return {};
  if (!isObject(value)) {
    problem(path, 'must be an object of header names to string values');
    return undefined;
  }
  const headers: Record<string, string> = {};
  let ok = true;
  const seen = new Set<string>();
  for (const [name, headerValue] of Object.entries(value)) {
    const lower = name.toLowerCase();
    const reason = !HEADER_NAME.test(name)
      ? 'is not a valid header name'
      : seen.has(lower)
        ? 'is given twice (header names are case-insensitive)'
        : typeof headerValue !== 'string' || !HEADER_VALUE.test(headerValue)
          ? 'must have a string value of at most 8192 characters without line breaks'
          : reserved(name);
    seen.add(lower);
    if (reason) {
      problem(`${path}.${name}`, reason);
      ok = false;
    } else {
      headers[lower] = headerValue as string;
    }
  }
  return ok ? headers : undefined;
}

/** Two declarations for one endpoint and one project (or both for every project) cannot both apply. */
function overlaps(entries: Array<{ index: number; declaration: ActionDeclaration }>): string[] {
  const problems: string[] = [];
  const claimed = new Map<string, number>();
  for (const { index, declaration } of entries) {
    const scopes = declaration.projects ?? ['*'];
    for (const scope of scopes) {
      const slot = `${endpointName(declaration)} ${scope}`;
      const earlier = claimed.get(slot);
      if (earlier === undefined) {
        claimed.set(slot, index);
      } else {
        const whom = scope === '*' ? 'every project' : `project ${scope}`;
        problems.push(`actions[${index}] (${endpointName(declaration)}): ${whom} already has this endpoint declared by actions[${earlier}]`);
      }
    }
  }
  return problems;
}
