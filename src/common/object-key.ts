import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { MatchesRule } from './validation/decorators.js';

/*
 * The key a client gives an object of a project (a resource, a subscription): unique within the project,
 * 2–256 characters of `[A-Za-z0-9_-]` (docs/rules.md#addressing-and-input). Its pattern, its message and
 * its OpenAPI statement live here once.
 */

export const KEY_PATTERN = /^[A-Za-z0-9_-]{2,256}$/;

/** The rule of a `key` member: a string matching KEY_PATTERN. */
export const Key = (): PropertyDecorator => MatchesRule(KEY_PATTERN, 'must be 2 to 256 characters of A-Z, a-z, 0-9, _ and -');

/** What the OpenAPI document says of every `key`; a member adds its own description over it. */
export const KEY_DOC = { pattern: KEY_PATTERN.source, description: 'Unique within the project.' };

/** The `key` of a `setKey` action: a key, or absent or null to remove it. */
export const RemovableKey = (): PropertyDecorator =>
  applyDecorators(IsOptional(), Key(), ApiPropertyOptional({ ...KEY_DOC, type: 'string', nullable: true, description: 'Absent or null removes the key.' }));
