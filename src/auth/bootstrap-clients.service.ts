import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { OpenedDatabaseInfo } from '../database/database.module.js';
import { ApiClientsRepository } from './api-clients.repository.js';
import { ApiClientsService, OPERATOR, toNewClient } from './api-clients.service.js';
import { ApiClientDraftDto } from './api-client.dto.js';
import { validateBody } from '../common/validation/validation.pipe.js';
import { SCOPE_NAMES } from './scopes.js';
import { authConfig, type AuthConfig } from './auth.config.js';

const DEMO_PROJECT_KEY = 'demo';

/**
 * At start-up: creates the bootstrap client of BOOTSTRAP_* when absent; with none configured, on an
 * empty embedded database, creates a demo client with every scope and prints its credentials once (two
 * lines: the credentials, and the command that gets a token); on any other database without a client,
 * says how to create the first one.
 */
@Injectable()
export class BootstrapClientsService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');

  constructor(
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
    private readonly info: OpenedDatabaseInfo,
    private readonly clients: ApiClientsService,
    private readonly repository: ApiClientsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const bootstrap = this.config.bootstrap;
    if (bootstrap) {
      if (await this.repository.findById(bootstrap.clientId)) return;
      const draft = toNewClient(validateBody(ApiClientDraftDto, { name: 'bootstrap', scope: bootstrap.scopes }), bootstrap.projectKey);
      await this.clients.create(bootstrap.projectKey, { ...draft, id: bootstrap.clientId, secret: bootstrap.clientSecret }, OPERATOR).catch(() => undefined);
      this.logger.log(`bootstrap API client ${bootstrap.clientId} created for project ${bootstrap.projectKey}`);
      return;
    }
    if ((await this.repository.count()) > 0) return;
    if (!this.info.embedded || !this.config.demoClient) {
      this.logger.warn(
        'no API client exists yet: set BOOTSTRAP_PROJECT_KEY, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET and BOOTSTRAP_SCOPES, ' +
          'or run: npm run cli -- client create --project <key> --name admin --scope "manage_test:<key> manage_api_clients:<key>"',
      );
      return;
    }
    const scope = SCOPE_NAMES.map((name) => `${name}:${DEMO_PROJECT_KEY}`).join(' ');
    const client = await this.clients.create(DEMO_PROJECT_KEY, { name: 'demo', scope }, OPERATOR);
    process.stdout.write(
      [
        `  Demo API client of project '${DEMO_PROJECT_KEY}', every scope (shown once; stored hashed): client_id: ${client.id}  client_secret: ${client.secret}`,
        `  Get a token: curl -s -u '${client.id}:${client.secret}' -d grant_type=client_credentials http://localhost:${this.http.port}/oauth/token`,
      ].join('\n') + '\n',
    );
  }
}
