import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SCOPE_NAMES } from '../../src/auth/scopes.js';
import { freePort, ROOT, ServerProcess } from '../support/server-process.js';
import { mismatches, parseBody, show, walkthroughSteps, type WalkthroughStep } from '../support/readme-walkthrough.js';

/*
 * The documentation's walk-through as a test, so that its examples cannot rot. The ```sh blocks of the
 * README's "A first tour", then those of docs/api-guide.md, run top to bottom in one bash session, exactly
 * as written except that `http://localhost:8080` becomes this test's server, against the real built server
 * (`node dist/src/main.js`) on a fresh database: a fresh embedded directory, whose printed demo client
 * gives $CLIENT_ID and $CLIENT_SECRET as a new user reads them, or a fresh database on the PostgreSQL of
 * DATABASE_URL with that client bootstrapped. Each step (the commands up to a `# →` comment) must exit 0,
 * and its last request must answer the documented status and body (the convention is in
 * test/support/readme-walkthrough.ts); any other request must answer 2xx/3xx.
 *
 * How the answers are seen: bash's `curl` is a function that adds `X-Request-Id: readme-step-<n>` and
 * calls the real curl, and the server is reached through a recording proxy in this process, so a
 * command keeps its own options (-i, -o, -D -, -w) and captures ($(…)) while every answer is checked.
 */

const SOURCES = [
  { file: 'README.md', text: readFileSync(join(ROOT, 'README.md'), 'utf8'), heading: '## A first tour' },
  { file: 'docs/api-guide.md', text: readFileSync(join(ROOT, 'docs/api-guide.md'), 'utf8'), heading: '# API guide' },
];
const STEPS = walkthroughSteps(SOURCES);
const DATABASE_URL = process.env.DATABASE_URL;
const TIMEOUT_MS = 180_000;

interface Exchange {
  step: string | undefined;
  method: string;
  url: string;
  status: number;
  body: string;
}

interface StepResult {
  exitCode: number;
  output: string;
  exchanges: Exchange[];
}

/** Forwards every request to the server and keeps what it answered. */
function recordingProxy(target: () => number, exchanges: Exchange[]): Server {
  return createServer((req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.write(chunk);
        });
        answer.on('end', () => {
          exchanges.push({
            step: req.headers['x-request-id'] as string | undefined,
            method: req.method ?? '',
            url: req.url ?? '',
            status: answer.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          res.end();
        });
      },
    );
    upstream.on('error', (error) => {
      exchanges.push({ step: req.headers['x-request-id'] as string | undefined, method: req.method ?? '', url: req.url ?? '', status: 0, body: String(error) });
      res.destroy();
    });
    req.pipe(upstream);
  });
}

/** One bash script: the steps in order, each one's output and exit code kept apart. */
function script(steps: WalkthroughStep[], base: string, outDir: string): string {
  const lines = [
    'set -o pipefail',
    `curl() { command curl -H "X-Request-Id: readme-step-$README_STEP" --max-time 60 "$@"; }`,
  ];
  for (const step of steps) {
    lines.push(`README_STEP=${step.index}`, '{', step.code.replaceAll('http://localhost:8080', base), `} >'${outDir}/${step.index}.out' 2>&1`);
    lines.push(`echo $? >'${outDir}/${step.index}.rc'`);
  }
  return lines.join('\n') + '\n';
}

function runBash(file: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const childEnv = { ...process.env, ...env };
    delete childEnv.NODE_OPTIONS;
    const child = spawn('bash', [file], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS - 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the walk-through (the README\'s first tour, then the API guide) run with bash against the real server', () => {
  const work = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
  const exchanges: Exchange[] = [];
  const results = new Map<number, StepResult>();
  let server: ServerProcess;
  let proxy: Server;
  let bashRun: { code: number | null; output: string };
  let admin: pg.Client | undefined;
  let freshDatabase: string | undefined;

  beforeAll(async () => {
    const clientEnv: Record<string, string> = {};
    const env: Record<string, string | undefined> = {
      LOG_LEVEL: 'warn',
      BOOTSTRAP_PROJECT_KEY: undefined,
      BOOTSTRAP_CLIENT_ID: undefined,
      BOOTSTRAP_CLIENT_SECRET: undefined,
      BOOTSTRAP_SCOPES: undefined,
      PUBLIC_BASE_URL: undefined,
    };
    if (DATABASE_URL) {
      // A database of its own: the documented answers (counts, versions) assume an empty project `demo`.
      admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      freshDatabase = `readme_${randomBytes(5).toString('hex')}`;
      await admin.query(`CREATE DATABASE "${freshDatabase}"`);
      const url = new URL(DATABASE_URL);
      url.pathname = `/${freshDatabase}`;
      clientEnv.CLIENT_ID = 'readme-demo';
      clientEnv.CLIENT_SECRET = `readme-${randomBytes(12).toString('hex')}`;
      Object.assign(env, {
        DATABASE_URL: url.toString(),
        BOOTSTRAP_PROJECT_KEY: 'demo',
        BOOTSTRAP_CLIENT_ID: clientEnv.CLIENT_ID,
        BOOTSTRAP_CLIENT_SECRET: clientEnv.CLIENT_SECRET,
        BOOTSTRAP_SCOPES: SCOPE_NAMES.map((name) => `${name}:demo`).join(' '),
      });
    } else {
      env.DATA_DIR = join(work, 'data');
    }
    server = new ServerProcess('readme', await freePort(), env);
    await server.waitReady();
    if (!DATABASE_URL) {
      // As a new user does: the demo client printed at the first start of an empty embedded database.
      const id = /client_id:\s+(\S+)/.exec(server.output)?.[1];
      const secret = /client_secret:\s+(\S+)/.exec(server.output)?.[1];
      if (!id || !secret) throw new Error(`no demo client printed at the first start: ${server.describe()}`);
      clientEnv.CLIENT_ID = id;
      clientEnv.CLIENT_SECRET = secret;
    }

    proxy = recordingProxy(() => server.port, exchanges);
    const proxyPort = await freePort();
    await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));

    const outDir = join(work, 'steps');
    const shellDir = join(work, 'shell');
    mkdirSync(outDir);
    mkdirSync(shellDir);
    const file = join(work, 'walkthrough.sh');
    writeFileSync(file, script(STEPS, `http://127.0.0.1:${proxyPort}`, outDir));
    bashRun = await runBash(file, shellDir, clientEnv);
    for (const step of STEPS) {
      const read = (suffix: string) => {
        try {
          return readFileSync(join(outDir, `${step.index}.${suffix}`), 'utf8');
        } catch {
          return undefined;
        }
      };
      results.set(step.index, {
        exitCode: Number(read('rc') ?? -1),
        output: read('out') ?? '(the step did not run)',
        exchanges: exchanges.filter((e) => e.step === `readme-step-${step.index}`),
      });
    }
  }, TIMEOUT_MS);

  afterAll(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    await server?.stop();
    if (admin) {
      if (freshDatabase) await admin.query(`DROP DATABASE IF EXISTS "${freshDatabase}" WITH (FORCE)`);
      await admin.end();
    }
    rmSync(work, { recursive: true, force: true });
  }, TIMEOUT_MS);

  it('runs every documented answer of the first tour and of the API guide, and bash ran to the end', () => {
    const [readme, guide] = SOURCES.map((source) => source.text);
    const tour = readme.slice(readme.indexOf('\n## A first tour\n'));
    const text = tour.slice(0, tour.slice(1).search(/\n## /) + 1) + guide;
    const documented = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1].match(/# →/g) ?? []).length).reduce((a, b) => a + b, 0);
    expect(STEPS.length).toBeGreaterThanOrEqual(20);
    expect(STEPS.filter((step) => step.answer).length).toBe(documented);
    expect(bashRun.code).toBe(0);
  });

  it.each(STEPS.map((step) => [`${step.index}. ${step.file} ${step.section}: ${title(step)}`, step] as const))('%s', (_title, step) => {
    const result = results.get(step.index)!;
    const context = () => `\n--- step ${step.index} (${step.file}, ${step.section}):\n${step.code}\n--- its output:\n${result.output.slice(-3000)}\n--- its requests: ${result.exchanges.map((e) => `${e.method} ${e.url} → ${e.status}`).join('; ') || 'none'}`;
    const problems: string[] = [];
    if (result.exitCode !== 0) problems.push(`exit code ${result.exitCode}`);
    const documented = step.answer ? result.exchanges.at(-1) : undefined;
    if (step.answer && !documented) problems.push(`no request reached the server, but ${step.file} documents an answer`);
    for (const exchange of result.exchanges) {
      if (exchange === documented) continue;
      if (exchange.status < 200 || exchange.status >= 400) problems.push(`${exchange.method} ${exchange.url} answered ${exchange.status} ${exchange.body.slice(0, 300)} (no documented answer: 2xx/3xx expected)`);
    }
    if (step.answer && documented) {
      if (documented.status !== step.answer.status) {
        problems.push(`${documented.method} ${documented.url} answered ${documented.status}, ${step.file} says ${step.answer.status}: ${documented.body.slice(0, 500)}`);
      }
      if (step.answer.body) {
        const actual = step.answer.body.kind === 'form' ? { json: documented.body } : parseBody(documented.body);
        if (!actual) problems.push(`the answer is not JSON: ${documented.body.slice(0, 300)}`);
        else problems.push(...mismatches(step.answer.body, actual.json).map((p) => `${p}\n    ${step.file}: ${step.answer!.bodyText}\n    answer: ${show(actual.json)}`));
      }
    }
    if (problems.length) throw new Error(`${problems.join('\n')}${context()}`);
  });
});

function title(step: WalkthroughStep): string {
  const first = step.code.split('\n').find((line) => line.trim() && !line.trim().startsWith('#')) ?? '';
  const short = first.trim().replace(/\s+/g, ' ');
  const shown = short.length > 90 ? `${short.slice(0, 90)}…` : short;
  return step.answer ? `${shown} → ${step.answer.status}` : shown;
}
