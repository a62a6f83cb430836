// `npm start`: the server (dist/src/main.js) with the settings of server-env.mjs in its environment
// (an operator's own values win), compiled first when a source changed since the last build (about 1 s).
// Signals go on to the server, whose exit code becomes this one's (the npm script `exec`s this file, so the
// signal npm passes on when it is stopped reaches it, not a shell in between).
import { spawn } from 'node:child_process';
import { build, outdated } from './build.mjs';
import { SERVER_ENV } from './server-env.mjs';

if (outdated()) process.stderr.write(`compiled src/ to dist/ in ${await build()} ms\n`);
const server = spawn(process.execPath, ['dist/src/main.js', ...process.argv.slice(2)], { stdio: 'inherit', env: { ...SERVER_ENV, ...process.env } });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
// Whoever started this (npm, a shell) went away without passing a signal on (killed with SIGKILL, say):
// stop the server as SIGTERM would, rather than leave it holding the port and the data directory.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && server.kill('SIGTERM'), 500).unref();
