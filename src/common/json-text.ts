import { applyDecorators, Header } from '@nestjs/common';

/**
 * For handlers that return JSON text built elsewhere (the database): sets the content type first, so
 * Express sends the string as it is instead of serialising it again.
 */
export const JsonText = (): MethodDecorator => applyDecorators(Header('Content-Type', 'application/json; charset=utf-8'));
