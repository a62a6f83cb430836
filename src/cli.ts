import 'reflect-metadata';
import { parseCommandLine } from './common/command-line.js';
import { Logger } from '@nestjs/common';
import { ApiClientsRepository } from './auth/api-clients.repository.js';
import { ApiClientsService, OPERATOR, toNewClient } from './auth/api-clients.service.js';
import { ApiClientDraftDto } from './auth/api-client.dto.js';
import { validateBody } from './common/validation/validation.pipe.js';
import { ConfigError, loadConfig } from './app-config.js';
import { Database } from './database/database.js';
import { DataDirectoryLockedError } from './database/embedded-postgres.js';
import { openDataSource } from './database/open-data-source.js';
import { DomainError } from './common/domain-error.js';
import { CliError, exportCommand, importCommand } from './resource/bulk/bulk.cli.js';

const USAGE = `Usage:
  npm run cli -- client create --project <key> --name <name> --scope "<scopes>" [--customer-id <id>]
  npm run cli -- export --url <base> --project <key> [--where <predicate>]… > file.ndjson
  npm run cli -- import --url <base> --project <key> <file.ndjson>

client create: creates an API client directly in the database (DATABASE_URL, or the embedded DATA_DIR, through
the server that runs on it if one does) and prints {id, secret, projectKey, scope} as JSON. The secret is shown once.
export, import: bulk NDJSON against a running server over HTTP; \`<command> --help\` for each.`;

/**
 * Operator commands: `client create` against the database (for when no API client exists yet to call the
 * HTTP API); `export` and `import` against a running server.
 */
async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'export') return exportCommand(argv.slice(1), process.env);
  if (argv[0] === 'import') return importCommand(argv.slice(1), process.env);
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      'customer-id': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.join(' ') !== 'client create' || !values.project || !values.name || !values.scope) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const draft = toNewClient(
    validateBody(ApiClientDraftDto, { name: values.name, scope: values.scope, ...(values['customer-id'] ? { customerId: values['customer-id'] } : {}) }),
    values.project,
  );
  const config = loadConfig();
  const opened = await openDataSource(config.database, { migrate: true, shareRunningServer: true });
  try {
    const clients = new ApiClientsService(new ApiClientsRepository(new Database(opened.pool, false)), config.auth);
    const created = await clients.create(values.project, draft, OPERATOR);
    process.stdout.write(`${JSON.stringify({ id: created.id, secret: created.secret, projectKey: values.project, scope: created.scope })}\n`);
    return 0;
  } finally {
    await opened.close();
  }
}

// stdout carries only the JSON answer.
Logger.overrideLogger(['error', 'fatal']);

/**
 * Ends the process once stdout and stderr have handed everything to the kernel: `process.exit` drops what a
 * pipe has not taken yet (the tail of an export whose reader is slower than the server).
 */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  if (error instanceof CliError) {
    process.stderr.write(`${error.message}\n`);
    return exit(error.exitCode);
  }
  if (error instanceof DataDirectoryLockedError) {
    process.stderr.write(`${error.message}\nIts holder serves no database socket there to share: stop it first, or create the client through the server's API (POST /{projectKey}/api-clients).\n`);
  } else if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof DomainError) {
    process.stderr.write(`Invalid input: ${error.errors.map((e) => e.message).join(' ')}\n`);
  } else {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  exit(1);
});
