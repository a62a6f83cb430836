import { applyDecorators, Controller, Get, Headers, HttpCode, Ip, Post, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { FormBody } from '../common/request-body.js';
import { ApiErrors, ErrorResponseDto } from '../common/error.dto.js';
import { Public } from './access.decorator.js';
import { type IssuedToken } from './token.service.js';
import { type Introspection, OAuthService } from './oauth.service.js';
import { DeclareRoute } from '../common/route-config.js';
import { asOAuthError } from './auth.errors.js';

class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'] }) grant_type: string;
  @ApiPropertyOptional({ description: 'Space-separated subset of the client\'s scopes (default: all of them).' }) scope?: string;
  @ApiPropertyOptional({ description: 'When not sent with HTTP Basic.' }) client_id?: string;
  @ApiPropertyOptional({ description: 'When not sent with HTTP Basic.' }) client_secret?: string;
}

class TokenResponseDto implements IssuedToken {
  @ApiProperty() access_token: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type: 'Bearer';
  @ApiProperty({ type: 'integer', example: 172800 }) expires_in: number;
  @ApiProperty() scope: string;
}

class IntrospectRequestDto {
  @ApiProperty() token: string;
}

class IntrospectionDto {
  @ApiProperty() active: boolean;
  @ApiPropertyOptional() scope?: string;
  @ApiPropertyOptional() client_id?: string;
  @ApiPropertyOptional() sub?: string;
  @ApiPropertyOptional({ type: 'integer' }) exp?: number;
  @ApiPropertyOptional({ type: 'integer' }) iat?: number;
  @ApiPropertyOptional() iss?: string;
  @ApiPropertyOptional() token_type?: string;
}

class JwksDto {
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } }) keys: object[];
}

const INVALID_REQUEST = 'invalid_request: a parameter missing, given more than once or holding a NUL character, or a body that is not form parameters or a JSON object';

/**
 * The error answers of the token and introspection endpoints: every one, whatever raised it (also the
 * server's checks of every request, such as a missing Host), is the envelope plus OAuth's `error` and
 * `error_description`. `bad`: the 400 answers' description.
 */
function OAuthErrors(bad: string): MethodDecorator {
  const response = (status: number, description: string) => ApiResponse({ status, description: `${description} (envelope with error, error_description).`, type: ErrorResponseDto });
  return applyDecorators(
    response(400, bad),
    response(401, 'invalid_client'),
    response(413, 'invalid_request: body too large (PayloadTooLarge)'),
    response(415, 'invalid_request: unsupported Content-Type (UnsupportedMediaType)'),
    response(429, 'temporarily_unavailable: too many requests from this address or for this client id, or too many secret checks waiting (TooManyRequests, Retry-After)'),
    response(503, 'temporarily_unavailable: database unreachable (ServiceUnavailable, Retry-After)'),
    response(500, 'server_error: unexpected error (General)'),
    DeclareRoute({ answerError: asOAuthError }),
  );
}

/** OAuth 2.0 client credentials (RFC 6749, section 4.4), introspection (RFC 7662) and the signing keys. */
@ApiTags('oauth')
@ApiErrors()
@Controller()
export class OAuthController {
  constructor(private readonly oauth: OAuthService) {}

  @Post('oauth/token')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Issues an access token (client credentials)' })
  @ApiBasicAuth('basic')
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({
    type: TokenRequestDto,
    examples: { clientCredentials: { summary: 'Client credentials in the body (or use HTTP Basic)', value: { grant_type: 'client_credentials', client_id: 'my-client', client_secret: 'its-secret' } } },
  })
  @ApiResponse({ status: 200, description: 'The access token (`Cache-Control: no-store`).', type: TokenResponseDto })
  @OAuthErrors(`${INVALID_REQUEST}; unsupported_grant_type; invalid_scope`)
  issueToken(@Headers('authorization') authorization: string | undefined, @FormBody() body: unknown, @Ip() address: string, @Res({ passthrough: true }) res: FastifyReply): Promise<IssuedToken> {
    res.header('Cache-Control', 'no-store');
    return this.oauth.issueToken(authorization, body, address);
  }

  @Post('oauth/introspect')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Introspects a token of the caller\'s project (RFC 7662)' })
  @ApiBasicAuth('basic')
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: IntrospectRequestDto })
  @ApiResponse({ status: 200, description: 'The RFC 7662 introspection of the token.', type: IntrospectionDto })
  @OAuthErrors(INVALID_REQUEST)
  introspectToken(@Headers('authorization') authorization: string | undefined, @FormBody() body: unknown, @Ip() address: string): Promise<Introspection> {
    return this.oauth.introspect(authorization, body, address);
  }

  @Get('.well-known/jwks.json')
  @Public()
  @ApiOperation({ summary: 'Public keys that verify this server\'s tokens' })
  @ApiResponse({ status: 200, type: JwksDto })
  getJwks(): { keys: object[] } {
    return this.oauth.jwks();
  }
}
