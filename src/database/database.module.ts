import { Global, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { databaseConfig, type DatabaseConfig } from './database.config.js';
import { Database } from './database.js';
import { ListAnswers } from './list-answers.js';
import { type OpenedDatabase, openDataSource } from './open-data-source.js';
import { ReadReplicas } from './read-replicas.js';

const OPENED_DATABASE = Symbol('OPENED_DATABASE');

/** What kind of database the app opened (the demo client is created on an embedded one only). */
export class OpenedDatabaseInfo {
  constructor(readonly embedded: boolean) {}
}

@Global()
@Module({
  providers: [
    {
      provide: OPENED_DATABASE,
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig) => openDataSource(config, { migrate: config.migrationsRun }),
    },
    {
      provide: OpenedDatabaseInfo,
      inject: [OPENED_DATABASE],
      useFactory: (opened: OpenedDatabase) => new OpenedDatabaseInfo(opened.embedded),
    },
    {
      provide: Database,
      inject: [OPENED_DATABASE, databaseConfig.KEY],
      useFactory: (opened: OpenedDatabase, config: DatabaseConfig) =>
        // Replicas are refused at start-up without DATABASE_URL (database.config.ts).
        new Database(
          opened.pool,
          !opened.embedded,
          config.replicaUrls.length > 0 ? new ReadReplicas(config, opened.pool) : undefined,
          config.projectConcurrency,
          opened.embedded ? config.embeddedMaxQueryCost || undefined : undefined,
        ),
    },
    ListAnswers,
  ],
  exports: [Database, OpenedDatabaseInfo, ListAnswers],
})
export class DatabaseModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(OPENED_DATABASE) private readonly opened: OpenedDatabase,
    private readonly db: Database,
  ) {}

  onApplicationBootstrap(): void {
    this.db.replicas?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.db.replicas?.close();
    await this.opened.close();
  }
}
