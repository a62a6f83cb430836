import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from './access.guard.js';
import { ApiClientsController } from './api-clients.controller.js';
import { ApiClientsRepository } from './api-clients.repository.js';
import { ApiClientsService } from './api-clients.service.js';
import { BootstrapClientsService } from './bootstrap-clients.service.js';
import { OAuthController } from './oauth.controller.js';
import { OAuthService } from './oauth.service.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TokenService } from './token.service.js';

@Module({
  controllers: [OAuthController, ApiClientsController],
  providers: [
    SigningKeysService,
    TokenService,
    ApiClientsRepository,
    ApiClientsService,
    OAuthService,
    BootstrapClientsService,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [ApiClientsService, TokenService],
})
export class AuthModule {}
