import { toJsonText } from './lossless-json.js';
import { validateBody } from './validation/validation.pipe.js';
import { ObjectTestTypePatternDto } from './array-test-type.dto.js';

/**
 * A possibly partial ObjectTestType used as a containment pattern (`objectParameter`,
 * `unionParameter`, the `Test-Header` of a namespace action), checked by `ObjectTestTypePatternDto`.
 */
export interface ObjectPattern {
  version?: number;
  /** JSON text of the partial ArrayTestType, exact for 64-bit integers. */
  objectTypeProperty?: string;
}

/** Validates `value` (errors under `path`) and returns the pattern; throws the 400 of the error envelope otherwise. */
export function toObjectPattern(value: unknown, path: string): ObjectPattern {
  const dto = validateBody(ObjectTestTypePatternDto, value, path);
  return {
    version: dto.version,
    objectTypeProperty: dto.objectTypeProperty === undefined ? undefined : toJsonText(dto.objectTypeProperty),
  };
}
