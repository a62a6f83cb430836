import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidatorOptions } from 'class-validator';
import { DomainError, type ErrorDetail } from '../domain-error.js';
import { ErrorCode } from '../error-code.js';
import { memoizeValidationMetadata } from './metadata-cache.js';
import { toErrorDetails, type ViolationSource } from './violations.js';

type DtoClass<T = object> = new () => T;

const BODY_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: true },
};
/** Unknown query parameters are ignored (docs/rules.md#addressing-and-input): stripped, not refused. */
const QUERY_OPTIONS: ValidatorOptions = { ...BODY_OPTIONS, forbidNonWhitelisted: false };

memoizeValidationMetadata(getMetadataStorage());

const dtoClasses = new WeakMap<object, boolean>();

/** A class with class-validator metadata (a DTO); `String`, `Object`, interfaces' `Object` are not. */
function isDto(metatype: unknown): metatype is DtoClass {
  if (typeof metatype !== 'function') return false;
  let known = dtoClasses.get(metatype);
  if (known === undefined) {
    known = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false).length > 0;
    dtoClasses.set(metatype, known);
  }
  return known;
}

/** Class-level metadata: errors under `array[i]` name their index in `member` (`actionIndex`). */
const ERROR_INDEX = Symbol('ERROR_INDEX');

export const IndexedErrors = (options: IndexedErrorsOptions): ClassDecorator => (target) => {
  Reflect.defineMetadata(ERROR_INDEX, options, target);
};

/**
 * Validates a JSON body against a DTO class and returns the instance; throws the 400 of the error envelope with
 * every violation otherwise. `path` prefixes the error paths (a body embedded in a parameter).
 */
export function validateBody<T extends object>(dto: DtoClass<T>, value: unknown, path = ''): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw DomainError.of(ErrorCode.InvalidField, path ? `${path}: must be a JSON object.` : 'The request body must be a JSON object.', {
      field: path,
      invalidValue: value,
    });
  }
  checkShape(value, path);
  const instance = withinDepth(() => plainToInstance(dto, value));
  const details = toErrorDetails(withinDepth(() => validateSync(instance, BODY_OPTIONS)), 'body', path);
  if (details.length > 0) throw violationError(dto, details);
  return instance;
}

/**
 * Bounds on any body's shape, and the member names no body may use, checked before class-transformer copies it: its cost grows with the
 * square of an object's member count (80,000 unknown members in 1 MiB took 8 s of the event loop) and
 * with every element of an array no DTO allows. No DTO declares more than 10,000 elements or 20 members.
 */
const BODY_SHAPE_LIMITS = { elements: 10_000, members: 100, values: 200_000 } as const;

/**
 * Member names every object inherits (`__proto__`, `constructor`, `toString`, `hasOwnProperty`…): no DTO
 * declares one, and class-transformer would drop them without a word, so a body naming one is refused
 * here like any other unknown member (an `objectParameter` of `{"__proto__": …}` would otherwise become an
 * empty pattern that matches everything).
 */
const OBJECT_MEMBERS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

function checkShape(root: object, path: string): void {
  // Depth first, in document order, without recursion (a body may nest thousands of levels deep).
  // Only objects and arrays are stacked; each one's parent and key are kept to name it in an error.
  const nodes: object[] = [root];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [''];
  const fieldOf = (node: number): string => {
    const names: (string | number)[] = [];
    for (let n = node; n > 0; n = parents[n]) names.push(keys[n]);
    let field = path;
    for (let i = names.length - 1; i >= 0; i--) {
      const name = names[i];
      field = typeof name === 'number' ? `${field}[${name}]` : field ? `${field}.${name}` : name;
    }
    return field;
  };
  const stack: number[] = [0];
  let values = 1;
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const value = nodes[node];
    const members = Array.isArray(value) ? undefined : Object.keys(value);
    const size = members ? members.length : (value as unknown[]).length;
    if (size > (members ? BODY_SHAPE_LIMITS.members : BODY_SHAPE_LIMITS.elements)) {
      const field = fieldOf(node);
      const reason = members ? `must have at most ${BODY_SHAPE_LIMITS.members} members` : `must have at most ${BODY_SHAPE_LIMITS.elements} elements`;
      throw DomainError.of(ErrorCode.InvalidField, `${field || 'The request body'}: ${reason}.`, { field, invalidValue: size });
    }
    values += size;
    if (values > BODY_SHAPE_LIMITS.values) {
      throw DomainError.invalidInput(`The request body holds more than ${BODY_SHAPE_LIMITS.values} values.`);
    }
    for (let i = size - 1; i >= 0; i--) {
      const key = members ? members[i] : i;
      const child: unknown = (value as Record<string | number, unknown>)[key];
      if (typeof key === 'string' && OBJECT_MEMBERS.has(key)) {
        const field = fieldOf(node) ? `${fieldOf(node)}.${key}` : key;
        throw DomainError.of(ErrorCode.InvalidField, `${field}: unknown field.`, { field, invalidValue: child });
      }
      if (typeof child !== 'object' || child === null) continue;
      parents.push(node);
      keys.push(key);
      stack.push(nodes.push(child) - 1);
    }
  }
}

/**
 * class-transformer and class-validator recurse into nested values; a hostile body nested thousands
 * of levels deep (in an unknown member, say) exhausts the stack. That is the client's error.
 */
function withinDepth<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError) throw DomainError.invalidInput('The request body is nested too deeply.');
    throw error;
  }
}

/** Per query DTO: whether no parameters at all is valid (nothing required). Computed once. */
const emptyQueryValid = new WeakMap<object, boolean>();

/** Converts and validates query parameters against a DTO class; unknown parameters are dropped. */
export function validateQuery<T extends object>(dto: DtoClass<T>, query: unknown): T {
  // Most reads carry no query string: when the class accepts none, its defaults are the answer, and
  // validating the same empty instance again would cost about 10 µs per request on the hot path.
  if (isEmpty(query)) {
    let valid = emptyQueryValid.get(dto);
    if (valid === undefined) {
      valid = validateSync(new dto(), QUERY_OPTIONS).length === 0;
      emptyQueryValid.set(dto, valid);
    }
    if (valid) return new dto();
  }
  const instance = plainToInstance(dto, query ?? {});
  const details = toErrorDetails(validateSync(instance, QUERY_OPTIONS), 'query');
  if (details.length > 0) throw violationError(dto, details);
  return instance;
}

function isEmpty(query: unknown): boolean {
  if (query === undefined || query === null) return true;
  for (const _ in query as object) return false;
  return true;
}

/** Violations listed in one answer: a 1 MiB body could otherwise be answered with 17 MB of errors. */
const MAX_LISTED_VIOLATIONS = 100;

function violationError(dto: DtoClass, all: ErrorDetail[]): DomainError {
  const index = Reflect.getMetadata(ERROR_INDEX, dto) as IndexedErrorsOptions | undefined;
  const details = index ? firstFailingElement(all, index) : all;
  const count = details.length;
  if (count > MAX_LISTED_VIOLATIONS) {
    return new DomainError(details.slice(0, MAX_LISTED_VIOLATIONS), `The request has ${count} invalid fields; errors lists the first ${MAX_LISTED_VIOLATIONS}.`);
  }
  return new DomainError(details, count === 1 ? details[0].message : `The request has ${count} invalid fields; see errors.`);
}

interface IndexedErrorsOptions {
  /** The list property, e.g. `actions`. */
  array: string;
  /** The member that names the index in each error, e.g. `actionIndex`. */
  member: string;
  /** An element's discriminator (`action`): when it is wrong, the element's other errors are noise. */
  discriminator?: string;
}

/**
 * Errors of a list applied in order (update actions): errors outside the list come first and alone;
 * otherwise those of the first failing element, each naming its index (`actionIndex: 2`) and starting
 * its message with it (`actions[2]: …`).
 */
function firstFailingElement(details: ErrorDetail[], { array, member, discriminator }: IndexedErrorsOptions): ErrorDetail[] {
  const field = new RegExp(`^${array}\\[(\\d+)\\]`);
  const prefix = new RegExp(`^${array}\\[\\d+\\](?:\\.|: )`);
  const indexOf = (detail: ErrorDetail) => field.exec(String(detail.field))?.[1];
  const outside = details.filter((detail) => indexOf(detail) === undefined);
  if (outside.length > 0) return outside;
  const first = Math.min(...details.map((detail) => Number(indexOf(detail))));
  let element = details.filter((detail) => Number(indexOf(detail)) === first);
  const wrongKind = element.filter((detail) => detail.field === `${array}[${first}].${discriminator}`);
  if (wrongKind.length > 0) element = wrongKind;
  return element
    .map((detail) => ({ ...detail, [member]: first, message: `${array}[${first}]: ${detail.message.replace(prefix, '')}` }));
}

/**
 * The global pipe: every handler parameter typed with a DTO class is validated by its decorators,
 * the one statement of its rules. Bodies (read by `@RequestBody()`) refuse unknown members; query
 * DTOs ignore unknown parameters. Pipes run after the guards, so authentication and scope come first.
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, { metatype, type }: ArgumentMetadata): unknown {
    if (!isDto(metatype)) return value;
    const source: ViolationSource = type === 'query' ? 'query' : 'body';
    return source === 'query' ? validateQuery(metatype, value) : validateBody(metatype, value);
  }
}
