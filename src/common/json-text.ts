import { applyDecorators, Header } from '@nestjs/common';

/**
 * For handlers that return JSON text built elsewhere (the database): sets the content type first, so
 * the string is sent as it is instead of being serialised again.
 */
export const JsonText = (): MethodDecorator => applyDecorators(Header('Content-Type', 'application/json; charset=utf-8'));
