import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling: the API client of the access token, and its customer when customer-bound. */
export interface Principal {
  clientId: string;
  customerId?: string;
  projectKey?: string;
  scopes?: string[];
}

export type RequestWithPrincipal = Request & { principal?: Principal };

/** The caller as the access guard authenticated it. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
  return request.principal ?? { clientId: 'anonymous' };
});
