import fc from 'fast-check';
import { RESOURCE_CATALOGUE } from './resource.catalogue.js';
import { expandError, orderBy as orderByIn, parseSort, type SortItem, sortError as sortErrorIn } from './sort-expand.js';

// Sorts over the resource's catalogue.
const sortError = (text: string) => sortErrorIn(RESOURCE_CATALOGUE, text);
const orderBy = (sorts: SortItem[]) => orderByIn(RESOURCE_CATALOGUE, sorts);

const FIELDS = 'id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate';

describe('sort', () => {
  it.each([
    ['key asc', { field: 'key', direction: 'asc' }],
    ['key DESC', { field: 'key', direction: 'desc' }],
    ['  version   Asc ', { field: 'version', direction: 'asc' }],
    ['createdAt desc', { field: 'createdAt', direction: 'desc' }],
    ['secondPropertyToUpdate asc', { field: 'secondPropertyToUpdate', direction: 'asc' }],
  ])('%j is valid → %j', (text, item) => {
    expect(sortError(text)).toBeUndefined();
    expect(parseSort(text)).toEqual(item);
  });

  it.each([
    ['key', `expected "<field> asc" or "<field> desc" (field one of ${FIELDS}) but found "key"`],
    ['', `expected "<field> asc" or "<field> desc" (field one of ${FIELDS}) but found ""`],
    ['key asc id', `expected "<field> asc" or "<field> desc" (field one of ${FIELDS}) but found "key asc id"`],
    ['Key asc', `expected a field to sort by (${FIELDS}) but found "Key"`],
    ['objectTypeProperty desc', `expected a field to sort by (${FIELDS}) but found "objectTypeProperty"`],
    ['key up', 'expected asc or desc after key but found "up"'],
    ['key asc;', `expected "<field> asc" or "<field> desc" (field one of ${FIELDS}) but found "key asc;"`],
  ])('%j → %s', (text, reason) => {
    expect(sortError(text)).toBe(reason);
  });

  it('orders by the sorts in turn, byte-wise for strings, then by id (a field sorted twice counts once)', () => {
    expect(orderBy([])).toBe('r.id ASC');
    expect(orderBy([{ field: 'key', direction: 'desc' }])).toBe('r.key COLLATE "C" DESC, r.id ASC');
    expect(orderBy([{ field: 'version', direction: 'asc' }, { field: 'lastModifiedAt', direction: 'desc' }, { field: 'version', direction: 'desc' }])).toBe(
      'r.version ASC, r.last_modified_at DESC, r.id ASC',
    );
    expect(orderBy([{ field: 'id', direction: 'desc' }, { field: 'key', direction: 'asc' }])).toBe('r.id DESC, r.key COLLATE "C" ASC');
  });

  it('any text either is a valid sort or gets a reason; the ORDER BY holds only known fragments', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const reason = sortError(text);
        if (reason !== undefined) return expect(reason).toMatch(/^expected /);
        expect(orderBy([parseSort(text)])).toMatch(/^(?:r\.\w+(?: COLLATE "C")? (?:ASC|DESC))(?:, r\.id ASC)?$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('expand', () => {
  it.each(['a', 'a.b', 'a[*]', 'a[*].b', 'objectTypeProperty.arrayOfObjectType[*].integerExample', '_x.y_1[*]'])('%j is valid', (text) => {
    expect(expandError(text)).toBeUndefined();
  });

  it.each(['', 'a..b', '.a', 'a.', 'a[0]', 'a[*]]', 'a[]', '1a', 'a b', 'a.*', "a'--"])('%j is malformed', (text) => {
    expect(expandError(text)).toBe(`expected a path of dotted identifiers, each optionally followed by [*] (such as "a.b[*].c"), but found ${JSON.stringify(text)}`);
  });
});
