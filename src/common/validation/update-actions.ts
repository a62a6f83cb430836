import { applyDecorators } from '@nestjs/common';
import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, ValidateNested } from 'class-validator';
import { Required } from './decorators.js';

type ActionClass = abstract new () => object;

/**
 * The `actions` member of an update request (a resource's, a subscription's, an extension's): an array of at
 * most `max` actions, each validated as the class its `action` names in `classes` (the request class names
 * the member errors are indexed by, with `@IndexedErrors`), documented as `oneOf` those classes.
 */
export function UpdateActions(base: ActionClass, classes: Record<string, ActionClass>, max: number): PropertyDecorator {
  // In the order stacked decorators run: from the last written to the first.
  return applyDecorators(
    ApiProperty({
      type: 'array',
      maxItems: max,
      description: 'Applied in order, all or nothing.',
      items: { oneOf: Object.values(classes).map((cls) => ({ $ref: getSchemaPath(cls as new () => object) })) },
    }),
    Type(() => base as new () => object, {
      discriminator: { property: 'action', subTypes: Object.entries(classes).map(([name, value]) => ({ name, value: value as new () => object })) },
      keepDiscriminatorProperty: true,
    }),
    ValidateNested({ each: true }),
    ArrayMaxSize(max, { message: `must have at most ${max} actions` }),
    IsArray({ message: 'must be an array' }),
    Required(),
  );
}
