import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { routeDeclaration } from '../common/route-config.js';
import type { RequestWithToken } from './jwt-verifier.js';
import { RequestAuthenticator } from './request-authenticator.js';

/**
 * The first global guard: the checks of `RequestAuthenticator` (404 on a parameter's pattern, 403 for
 * a route without an access rule, 401 without a valid token). For a route that declares its access
 * they ran already, before the body was read (the authenticator's hook), and cost nothing here; a
 * route that declares nothing is refused here (default deny). Then `ScopeGuard`.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(private readonly authenticator: RequestAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithToken & { params: unknown }>();
    await this.authenticator.admit(request, routeDeclaration(request));
    return true;
  }
}
