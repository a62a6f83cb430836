import { compileCatalogue } from './catalogue.js';
import { QuerySyntaxError } from './lexer.js';
import { orderBy } from './sort-expand.js';
import { parseWhere } from './where-parser.js';
import { SqlParams, whereToSql } from './where-sql.js';

/** A second model in the shape the change log's messages will take (docs/change-log-and-subscriptions.md#change-log): the languages need nothing else. */
const MESSAGES = compileCatalogue({
  table: 'message',
  alias: 'm',
  fields: [
    { kind: 'column', name: 'id', column: 'id', type: 'id', filterable: true, sortable: true },
    { kind: 'column', name: 'version', column: 'version', type: 'integer' },
    { kind: 'column', name: 'sequenceNumber', column: 'sequence_number', type: 'integer', filterable: true, sortable: true },
    { kind: 'object', name: 'resource', members: [{ kind: 'column', name: 'id', column: 'resource_id', type: 'id', filterable: true }] },
    { kind: 'column', name: 'type', column: 'type', type: 'string', filterable: true },
    { kind: 'column', name: 'createdAt', column: 'created_at', type: 'datetime', filterable: true, sortable: true },
  ],
});

const error = (run: () => unknown): string => {
  try {
    run();
  } catch (e) {
    if (e instanceof QuerySyntaxError) return e.message;
    throw e;
  }
  throw new Error('expected a QuerySyntaxError');
};

describe('a catalogue', () => {
  it('gives where its filterable fields, and the columns of a nested object', () => {
    const params = new SqlParams(2);
    const where = 'resource(id = "7d6bd52c-5b4e-4a5e-9a49-5a3a8f7e8b10") and sequenceNumber > 2 and type = "KeySet"';
    expect(whereToSql(MESSAGES, [where], new Map(), params, 'p')).toBe(
      '((((m.resource_id = $2::uuid)) AND (m.sequence_number > $3::bigint) AND (m.type = $4::text)))',
    );
    expect(params.values).toEqual(['7d6bd52c-5b4e-4a5e-9a49-5a3a8f7e8b10', '2', 'KeySet']);
  });

  it('names its own fields in where errors: columns first, then objects', () => {
    expect(error(() => parseWhere(MESSAGES, 'version = 1'))).toBe(
      'expected a field (id, sequenceNumber, type, createdAt, resource) but found unknown field "version" (line 1, column 1)',
    );
    expect(error(() => parseWhere(MESSAGES, 'resource(key = "a")'))).toBe('expected a field of resource (id) but found unknown field "key" (line 1, column 10)');
  });

  it('sorts by its sortable fields, ties broken by its id', () => {
    const sorts = [{ field: 'createdAt', direction: 'asc' as const }, { field: 'sequenceNumber', direction: 'asc' as const }];
    expect(orderBy(MESSAGES, sorts)).toBe('m.created_at ASC, m.sequence_number ASC, m.id ASC');
  });

  it('projects its fields as JSON in its order', () => {
    expect(MESSAGES.json).toBe(
      "json_strip_nulls(json_build_object('id', m.id, 'version', m.version, 'sequenceNumber', m.sequence_number, " +
        "'resource', json_build_object('id', m.resource_id), 'type', m.type, " +
        `'createdAt', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text`,
    );
    expect(MESSAGES.searchPaths.size).toBe(0);
  });
});

describe('the message catalogue', () => {
  it('shows constants, objects of columns and the payload after the common members', async () => {
    const { MESSAGE_CATALOGUE, MESSAGE_JSON } = await import('./message.catalogue.js');
    expect(MESSAGE_CATALOGUE.json).toContain("'version', 1");
    expect(MESSAGE_CATALOGUE.json).toContain("'resource', json_build_object('typeId', 'resource', 'id', m.resource_id)");
    expect(MESSAGE_JSON).toContain("|| ',' || m.payload || '}'");
    expect(error(() => parseWhere(MESSAGE_CATALOGUE, 'version = 1'))).toContain('unknown field "version"');
    expect(error(() => parseWhere(MESSAGE_CATALOGUE, 'resource(typeId = "resource")'))).toBe(
      'expected a field of resource (id) but found unknown field "typeId" (line 1, column 10)',
    );
  });
});
