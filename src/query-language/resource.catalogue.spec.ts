import { SEARCH_VALUE_COLUMNS } from '../database/migrations/1763700000007-search-values.js';
import { RESOURCE_CATALOGUE } from './resource.catalogue.js';

describe('the resource catalogue', () => {
  it('names the value columns of resource_search that migration 1763700000007 created, with their types', () => {
    const paths = [...RESOURCE_CATALOGUE.searchPaths.values()].flatMap((p) =>
      p.source.kind === 'values' ? [{ column: p.source.column, type: p.dataType === 'number' ? 'numeric[]' : 'text[]' }] : [],
    );
    expect(paths).toEqual(SEARCH_VALUE_COLUMNS.map((c) => ({ column: c.column, type: c.type })));
  });
});
