import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';

/** Makes the configuration sections (one provider each, see `configSection`) injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(sections: Provider[]): DynamicModule {
    return { module: ConfigModule, providers: sections, exports: sections };
  }
}
