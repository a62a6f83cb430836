import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { configProviders, type AppConfig } from './app-config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ErrorEnvelopeFilter } from './common/error-envelope.filter.js';
import { DtoValidationPipe } from './common/validation/validation.pipe.js';
import { AuthModule } from './auth/auth.module.js';
import { HealthModule } from './health/health.module.js';
import { ResourceModule } from './resource/resource.module.js';
import { SearchModule } from './search/search.module.js';
import { ImagesModule } from './images/images.module.js';
import { NamespaceActionsModule } from './namespace-actions/namespace-actions.module.js';
import { ComplexPathModule } from './complex-path/complex-path.module.js';
import { ChangeLogModule } from './change-log/change-log.module.js';
import { MetricsModule } from './observability/metrics.module.js';
import { SubscriptionsModule } from './subscriptions/subscriptions.module.js';
import { LiveModule } from './live/live.module.js';
import { GraphqlModule } from './graphql/graphql.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(configProviders(config)),
        DatabaseModule,
        AuthModule,
        HealthModule,
        ResourceModule,
        SearchModule,
        ImagesModule,
        NamespaceActionsModule,
        ComplexPathModule,
        ChangeLogModule,
        SubscriptionsModule,
        LiveModule,
        GraphqlModule,
        MetricsModule.forRoot(config.metrics),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: APP_PIPE, useClass: DtoValidationPipe },
      ],
    };
  }
}
