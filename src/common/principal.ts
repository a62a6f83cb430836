import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling: the API client of the access token, and its customer when customer-bound. */
export interface Principal {
  clientId: string;
  customerId?: string;
  /** Authorized as a customer (POST /resource): may act only on what that customer created. */
  customerOnly?: boolean;
  /** The scopes of its token (`<name>:<projectKey>`, `customer_id_test:<id>`). */
  scopeSet: ReadonlySet<string>;
  /** The id of the request acting (its `X-Request-Id`), passed to the calls it causes (extensions' `X-Correlation-ID`). */
  requestId?: string;
}

export type RequestWithPrincipal = FastifyRequest & { principal?: Principal };

/** The caller as the auth module's guards recorded it (only on routes that require a scope). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
  const principal = request.principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without a scope rule');
  return { ...principal, requestId: String(request.id) };
});
