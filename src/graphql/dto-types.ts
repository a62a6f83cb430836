import {
  GraphQLBoolean,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';

/*
 * GraphQL types derived from the DTO classes, through the metadata their `@ApiProperty` decorators record
 * (the same metadata that writes the OpenAPI schemas): a property added to a DTO appears in both at once.
 * OpenAPI → GraphQL: `integer` with format `int64` → `Long`, other integers → `Int`, `number` → `Number`,
 * `string` → `String`, `boolean` → `Boolean`, arrays → lists, a DTO class → its object (or input) type;
 * a required property is non-null.
 */

const PROPERTIES_ARRAY = 'swagger/apiModelPropertiesArray';
const PROPERTY = 'swagger/apiModelProperties';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A whole number as the service holds it: a `number` when exact, else a `bigint`; undefined when not a signed 64-bit integer. */
function toLong(value: unknown): number | bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  return undefined;
}

function literalLong(text: string): number | bigint | undefined {
  const big = BigInt(text);
  if (big < INT64_MIN || big > INT64_MAX) return undefined;
  return Number.isSafeInteger(Number(big)) ? Number(big) : big;
}

/**
 * `Long`: a signed 64-bit integer, written as a JSON number with every digit (the answer is serialised
 * losslessly, as REST's are); in a document, an integer literal; in variables, a JSON integer.
 */
export const GraphQLLong = new GraphQLScalarType({
  name: 'Long',
  description: 'A signed 64-bit integer, exact over its whole range, written as a JSON number.',
  serialize: (value) => {
    const long = toLong(value);
    if (long === undefined) throw new TypeError(`Long cannot represent ${String(value)}`);
    return long;
  },
  parseValue: (value) => {
    const long = toLong(value);
    if (long === undefined) throw new TypeError('must be a signed 64-bit integer');
    return long;
  },
  parseLiteral: (node) => {
    const long = node.kind === Kind.INT ? literalLong(node.value) : undefined;
    if (long === undefined) throw new TypeError('must be a signed 64-bit integer');
    return long;
  },
});

/** A JSON number: a finite `number`, or a `bigint` (a whole number past 2^53, as lossless JSON parses it). */
function toNumber(value: unknown): number | bigint | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  return typeof value === 'bigint' ? value : undefined;
}

/**
 * `Number`: a JSON number as the resource holds it (`number` in the OpenAPI schemas), written with every digit.
 * Not `Float`: a whole number past 2^53 in a number array is a `bigint`, which `Float` cannot represent.
 */
export const GraphQLNumber = new GraphQLScalarType({
  name: 'Number',
  description: 'A JSON number, written with every digit (whole numbers past 2^53 stay exact).',
  serialize: (value) => {
    const number = toNumber(value);
    if (number === undefined) throw new TypeError(`Number cannot represent ${String(value)}`);
    return number;
  },
  parseValue: (value) => {
    const number = toNumber(value);
    if (number === undefined) throw new TypeError('must be a number');
    return number;
  },
  parseLiteral: (node) => {
    if (node.kind === Kind.INT) return literalLong(node.value) ?? BigInt(node.value);
    if (node.kind === Kind.FLOAT && Number.isFinite(Number(node.value))) return Number(node.value);
    throw new TypeError('must be a number');
  },
});

/** The metadata one `@ApiProperty` records. */
interface PropertyMetadata {
  type?: unknown;
  required?: boolean;
  format?: string;
  isArray?: boolean;
  items?: { type?: string; format?: string };
  description?: string;
}

export type DtoClass = abstract new (...args: never[]) => object;

/** The documented properties of a DTO class (its bases' first), in declaration order. */
export function dtoProperties(dto: DtoClass): Array<[name: string, metadata: PropertyMetadata]> {
  const names = (Reflect.getMetadata(PROPERTIES_ARRAY, dto.prototype) ?? []) as string[];
  return [...new Set(names)].map((entry) => {
    const name = entry.replace(/^:/, '');
    return [name, (Reflect.getMetadata(PROPERTY, dto.prototype, name) ?? {}) as PropertyMetadata];
  });
}

const isDto = (value: unknown): value is DtoClass => typeof value === 'function' && Reflect.getMetadata(PROPERTIES_ARRAY, (value as DtoClass).prototype ?? {}) !== undefined;

/** What a property holds: a scalar's OpenAPI name, or a DTO class; and whether it is a list. */
type Shape = { list: boolean; scalar: 'string' | 'boolean' | 'number' | 'integer' | 'int64'; dto?: undefined } | { list: boolean; dto: DtoClass; scalar?: undefined };

function shapeOf(metadata: PropertyMetadata): Shape {
  let type = metadata.type;
  let list = metadata.isArray === true;
  // `type: () => Dto` or `type: () => [Dto]`: a lazy reference (an arrow function has no prototype).
  if (typeof type === 'function' && !(type as { prototype?: unknown }).prototype) type = (type as () => unknown)();
  if (Array.isArray(type)) {
    list = true;
    type = type[0];
  }
  if (type === 'array') return { ...scalarShape(metadata.items?.type, metadata.items?.format), list: true };
  if (isDto(type)) return { list, dto: type };
  if (type === String) return { list, scalar: 'string' };
  if (type === Boolean) return { list, scalar: 'boolean' };
  if (type === Number) return { list, scalar: 'number' };
  return { ...scalarShape(typeof type === 'string' ? type : undefined, metadata.format), list };
}

function scalarShape(type: string | undefined, format: string | undefined): { list: false; scalar: Exclude<Shape['scalar'], undefined> } {
  if (type === 'integer') return { list: false, scalar: format === 'int64' ? 'int64' : 'integer' };
  if (type === 'number' || type === 'boolean') return { list: false, scalar: type };
  return { list: false, scalar: 'string' };
}

const SCALARS = { string: GraphQLString, boolean: GraphQLBoolean, number: GraphQLNumber, integer: GraphQLInt, int64: GraphQLLong };

/** The GraphQL scalar an OpenAPI property becomes (exported for the test that compares both). */
export function scalarOf(metadata: PropertyMetadata): GraphQLScalarType | undefined {
  const shape = shapeOf(metadata);
  return shape.scalar ? SCALARS[shape.scalar] : undefined;
}

/**
 * Builds object and input types from DTO classes, each once: `names` gives a class its GraphQL name (by
 * default the class name without `Dto`); input types add `Input`.
 */
export class DtoTypes {
  private readonly outputs = new Map<DtoClass, GraphQLObjectType>();
  private readonly inputs = new Map<DtoClass, GraphQLInputObjectType>();

  constructor(private readonly names: Map<DtoClass, string> = new Map()) {}

  nameOf(dto: DtoClass): string {
    return this.names.get(dto) ?? dto.name.replace(/Dto$/, '');
  }

  /** Makes `type` the object type of `dto` (one built by hand, with fields the DTO does not describe). */
  define(dto: DtoClass, type: GraphQLObjectType): void {
    this.outputs.set(dto, type);
  }

  /** The object type of `dto`; `extra` adds fields the DTO does not describe (resolved ones). */
  output(dto: DtoClass, extra: () => GraphQLFieldConfigMap<unknown, unknown> = () => ({}), order?: readonly string[]): GraphQLObjectType {
    const known = this.outputs.get(dto);
    if (known) return known;
    const type: GraphQLObjectType = new GraphQLObjectType({
      name: this.nameOf(dto),
      fields: () => {
        const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
        const properties = new Map(dtoProperties(dto));
        for (const name of order ?? properties.keys()) {
          const metadata = properties.get(name);
          if (!metadata) continue;
          fields[name] = { type: this.outputType(metadata), description: metadata.description };
        }
        return { ...fields, ...extra() };
      },
    });
    this.outputs.set(dto, type);
    return type;
  }

  /** The input type of `dto` without the properties in `omit`. */
  input(dto: DtoClass, name = `${this.nameOf(dto)}Input`, omit: readonly string[] = []): GraphQLInputObjectType {
    const known = this.inputs.get(dto);
    if (known) return known;
    const type: GraphQLInputObjectType = new GraphQLInputObjectType({
      name,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        for (const [property, metadata] of dtoProperties(dto)) {
          if (!omit.includes(property)) fields[property] = { type: this.inputType(metadata), description: metadata.description };
        }
        return fields;
      },
    });
    this.inputs.set(dto, type);
    return type;
  }

  outputType(metadata: PropertyMetadata): GraphQLOutputType {
    const shape = shapeOf(metadata);
    const element: GraphQLOutputType = shape.dto ? this.output(shape.dto) : SCALARS[shape.scalar];
    return wrap(shape.list ? new GraphQLList(new GraphQLNonNull(element)) : element, metadata.required !== false) as GraphQLOutputType;
  }

  inputType(metadata: PropertyMetadata): GraphQLInputType {
    const shape = shapeOf(metadata);
    const element: GraphQLInputType = shape.dto ? this.input(shape.dto) : SCALARS[shape.scalar];
    return wrap(shape.list ? new GraphQLList(new GraphQLNonNull(element)) : element, metadata.required !== false) as GraphQLInputType;
  }
}

function wrap<T extends GraphQLOutputType | GraphQLInputType>(type: T, required: boolean): T | GraphQLNonNull<T> {
  return required ? new GraphQLNonNull(type) : type;
}
