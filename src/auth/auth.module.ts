import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthenticationGuard } from './authentication.guard.js';
import { ApiClientsController } from './api-clients.controller.js';
import { ApiClientsRepository } from './api-clients.repository.js';
import { ApiClientsService } from './api-clients.service.js';
import { BootstrapClientsService } from './bootstrap-clients.service.js';
import { OAuthController } from './oauth.controller.js';
import { OAuthService } from './oauth.service.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TokenService } from './token.service.js';
import { JwtStrategy } from './jwt.strategy.js';
import { JwtVerifier } from './jwt-verifier.js';
import { ScopeGuard } from './scope.guard.js';
import { RequestAuthenticator } from './request-authenticator.js';

@Module({
  controllers: [OAuthController, ApiClientsController],
  providers: [
    SigningKeysService,
    TokenService,
    ApiClientsRepository,
    ApiClientsService,
    OAuthService,
    BootstrapClientsService,
    JwtVerifier,
    JwtStrategy,
    RequestAuthenticator,
    // Global guards run in this order: authentication (404/403/401), then project key and scope.
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: ScopeGuard },
  ],
  exports: [ApiClientsService, TokenService, RequestAuthenticator],
})
export class AuthModule {}
