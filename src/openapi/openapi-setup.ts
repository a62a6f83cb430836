import type { INestApplication } from '@nestjs/common';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../app-config.js';
import { buildOpenApiDocument } from './openapi-document.js';

/**
 * The document as served to one request: without PUBLIC_BASE_URL, its first server and the token URL
 * are the request's own origin, so "Try it out" and Authorize on a local `npm start` reach this server.
 */
function documentForRequest(document: OpenAPIObject, config: AppConfig, req: FastifyRequest): OpenAPIObject {
  if (config.http.publicBaseUrl) return document;
  const host = req.headers.host;
  if (!host || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return document;
  const origin = `${req.protocol === 'https' ? 'https' : 'http'}://${host}`;
  const [, ...others] = document.servers ?? [];
  const schemes = { ...document.components?.securitySchemes };
  const oauth2 = schemes.oauth2 as { flows?: { clientCredentials?: { tokenUrl: string } } } | undefined;
  if (oauth2?.flows?.clientCredentials) {
    schemes.oauth2 = {
      ...oauth2,
      flows: { ...oauth2.flows, clientCredentials: { ...oauth2.flows.clientCredentials, tokenUrl: `${origin}/oauth/token` } },
    } as (typeof schemes)[string];
  }
  return { ...document, servers: [{ url: origin, description: 'This server' }, ...others], components: { ...document.components, securitySchemes: schemes } };
}

/** Serves the Swagger page at `/docs` and the document at `/openapi.json`, both without a token. */
export function setupOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app, config), {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'Generic Project-Scoped Resource API — Swagger',
    patchDocumentOnRequest: (req, _res, document) => documentForRequest(document, config, req as FastifyRequest),
    swaggerOptions: {
      persistAuthorization: true,
      displayRequestDuration: true,
      tryItOutEnabled: false,
      filter: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      // No tagsSorter: the tags keep the document's (spec) order.
      // Swagger UI would otherwise send the document to validator.swagger.io: nothing leaves the machine.
      validatorUrl: null,
    },
  });
}
