import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { RESOURCE_JSON } from '../resource/resource.repository.js';
import type { FacetExpression, FilterExpression, FilterItem, NumericRange, SearchPath } from './search-expression.parser.js';
import { FUZZY_MAX_ALTERNATIVES } from './text-search.js';

/** One `text.<lang>` condition: every word must match one of its alternatives (the word and its fuzzy neighbours). */
export interface TextCondition {
  /** A PostgreSQL text-search configuration from `LANGUAGE_CONFIGS` (never user text). */
  config: string;
  words: string[][];
}

export type SortField = 'score' | 'id' | 'key' | 'version' | 'createdAt' | 'lastModifiedAt' | 'published' | 'someProperty' | 'secondPropertyToUpdate';

export interface SearchPlan {
  staged: boolean;
  texts: TextCondition[];
  /** `filter.query`: results and facets. */
  queryFilters: FilterExpression[];
  /** `filter`: results only. */
  resultFilters: FilterExpression[];
  /** `filter.facets`: facets only. */
  facetFilters: FilterExpression[];
  facets: Array<{ name: string; facet: FacetExpression }>;
  sort: Array<{ field: SortField; descending: boolean }>;
  limit: number;
  offset: number;
}

export interface FuzzyWord {
  word: string;
  distance: number;
}

const SORT_COLUMNS: Record<SortField, string> = {
  score: 'r.score',
  id: 'r.id',
  key: 'r.key COLLATE "C"',
  version: 'r.version',
  createdAt: 'r.created_at',
  lastModifiedAt: 'r.last_modified_at',
  published: 'r.published',
  someProperty: 'r.some_property COLLATE "C"',
  secondPropertyToUpdate: 'r.second_property_to_update COLLATE "C"',
};

/** Terms of a terms facet, at most (CONTRACT.md §10). */
const MAX_TERMS = 200;

/** Collects bound values; every value reaching SQL goes through `bind`. */
class Binder {
  readonly values: unknown[] = [];
  bind(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }
}

/** A JSON path (SQL/JSON) to a path's values inside `object_type_property`; names come from `SEARCH_PATHS`, never from input. */
function jsonPath(path: SearchPath): string | undefined {
  const source = path.source;
  if (source.kind === 'array') return `$.${source.field}[*]`;
  if (source.kind === 'member') return `$.${source.field}[*].${source.member}`;
  return undefined;
}

/**
 * One row `(id, v)` per value the resources of `fac` hold at a path (`v` is jsonb). Set-returning
 * functions in the select list (no per-row function scan), one pass over the facet set.
 */
function valueRows(path: SearchPath): string {
  const source = path.source;
  switch (source.kind) {
    case 'array':
      return `SELECT r.id, jsonb_array_elements(coalesce(r.object_type_property -> '${source.field}', '[]')) AS v FROM fac r`;
    case 'member':
      return `SELECT e.id, e.o -> '${source.member}' AS v FROM (SELECT r.id, jsonb_array_elements(coalesce(r.object_type_property -> '${source.field}', '[]')) AS o FROM fac r) e WHERE e.o ? '${source.member}'`;
    case 'column':
      return `SELECT r.id, to_jsonb(r.${source.column}) AS v FROM fac r${source.column === 'key' ? ' WHERE r.key IS NOT NULL' : ''}`;
  }
}

/** The resource `r` holds at least one value at the path. */
function hasValues(path: SearchPath): string {
  const source = path.source;
  switch (source.kind) {
    case 'array':
      return `jsonb_array_length(coalesce(r.object_type_property -> '${source.field}', '[]')) > 0`;
    case 'member':
      return `jsonb_path_exists(r.object_type_property, '${jsonPath(path)}')`;
    case 'column':
      return source.column === 'key' ? 'r.key IS NOT NULL' : 'TRUE';
  }
}

/** A JSON literal of a value item, for containment and equality on `jsonb`. */
function jsonOf(item: ValueItem): string {
  return item.kind === 'text' ? JSON.stringify(item.value) : String(item.value);
}

type ValueItem = Extract<FilterItem, { kind: 'text' | 'number' | 'boolean' }>;
const isValue = (i: FilterItem): i is ValueItem => i.kind === 'text' || i.kind === 'number' || i.kind === 'boolean';

/** `lo ≤ value ≤ hi` (filters) or `lo ≤ value < hi` (range facets) over numeric: exact for 64-bit. */
function rangeMatches(value: string, range: NumericRange, b: Binder, includeTo: boolean): string {
  const parts: string[] = [];
  if (range.from !== undefined) parts.push(`${value} >= ${b.bind(range.from, 'numeric')}`);
  if (range.to !== undefined) parts.push(`${value} ${includeTo ? '<=' : '<'} ${b.bind(range.to, 'numeric')}`);
  return parts.length > 0 ? parts.join(' AND ') : 'TRUE';
}

/** A condition on one value `x.v` (jsonb) for a value, range or `exists` item. */
function valueMatches(item: FilterItem, b: Binder): string {
  if (isValue(item)) return `x.v = ${b.bind(jsonOf(item), 'jsonb')}`;
  if (item.kind === 'range') return `(jsonb_typeof(x.v) = 'number' AND ${rangeMatches('(x.v)::numeric', item.range, b, true)})`;
  return item.kind === 'exists' ? 'TRUE' : 'FALSE';
}

/** A range over the values of `r` at an array path: SQL/JSON with the ends as numeric variables (exact). */
function rangeCondition(path: SearchPath, range: NumericRange, b: Binder): string {
  const source = path.source;
  if (source.kind === 'column') return rangeMatches(`r.${source.column}::numeric`, range, b, true);
  const tests: string[] = [];
  const vars: string[] = [];
  if (range.from !== undefined) {
    tests.push('@ >= $lo');
    vars.push(`'lo', ${b.bind(range.from, 'numeric')}`);
  }
  if (range.to !== undefined) {
    tests.push('@ <= $hi');
    vars.push(`'hi', ${b.bind(range.to, 'numeric')}`);
  }
  const filter = tests.length > 0 ? tests.join(' && ') : '@.type() == "number"';
  return `jsonb_path_exists(r.object_type_property, '${jsonPath(path)} ? (${filter})', jsonb_build_object(${vars.join(', ')}))`;
}

/**
 * A filter as a condition on `r`: any item matches. Equal values on `objectTypeProperty` are written as
 * containment on the whole column, so its GIN index serves them; ranges compare as numeric (exact 64-bit).
 */
function filterCondition(filter: FilterExpression, b: Binder): string {
  const { path } = filter;
  const source = path.source;
  const parts: string[] = [];
  for (const item of filter.items) {
    if (isValue(item)) {
      if (source.kind === 'array') {
        parts.push(`r.object_type_property @> ${b.bind(`{"${source.field}":[${jsonOf(item)}]}`, 'jsonb')}`);
      } else if (source.kind === 'member') {
        parts.push(`r.object_type_property @> ${b.bind(`{"${source.field}":[{"${source.member}":${jsonOf(item)}}]}`, 'jsonb')}`);
      } else if (source.column === 'key') {
        parts.push(`r.key = ${b.bind(item.value, 'text')}`);
      } else if (source.column === 'version') {
        parts.push(`r.version::numeric = ${b.bind(item.value, 'numeric')}`);
      } else {
        parts.push(`r.published = ${b.bind(item.value, 'boolean')}`);
      }
    } else if (item.kind === 'range') {
      parts.push(rangeCondition(path, item.range, b));
    } else {
      parts.push(item.kind === 'exists' ? hasValues(path) : `NOT (${hasValues(path)})`);
    }
  }
  return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
}

function textQuery(text: TextCondition, b: Binder): string {
  return text.words
    .map((alternatives) => `(${alternatives.map((word) => `plainto_tsquery('${text.config}'::regconfig, ${b.bind(word, 'text')})`).join(' || ')})`)
    .join(' && ');
}

function facetSql(facet: FacetExpression, b: Binder): string {
  const rows = valueRows(facet.path);
  const counting = facet.countingResources;
  switch (facet.kind) {
    case 'terms': {
      const text = facet.path.dataType === 'text';
      const order = text ? `g.v COLLATE "C"` : facet.path.dataType === 'number' ? '(g.v)::numeric' : 'g.v';
      // Counted once (grp; strings grouped as text, which hashes faster than jsonb), then only the
      // first terms sorted (a top-N sort, not a sort of every term).
      return `(WITH grp AS (SELECT ${text ? `x.v #>> '{}'` : 'x.v'} AS v, count(*) AS c${counting ? ', count(DISTINCT x.id) AS rc' : ''} FROM (${rows}) x GROUP BY 1),
             top AS (SELECT g.*, row_number() OVER (ORDER BY g.c DESC, ${order}) AS n FROM grp g ORDER BY g.c DESC, ${order} LIMIT ${MAX_TERMS})
        SELECT json_build_object('type', 'terms', 'dataType', '${facet.path.dataType}',
          'missing', (SELECT count(*) FROM fac r WHERE NOT (${hasValues(facet.path)})),
          'total', t.total, 'other', t.total - coalesce((SELECT sum(top.c) FROM top), 0),
          'terms', coalesce((SELECT json_agg(json_build_object('term', top.v, 'count', top.c${counting ? `, 'resourceCount', top.rc` : ''}) ORDER BY top.n) FROM top), '[]'))
        FROM (SELECT coalesce(sum(grp.c), 0) AS total FROM grp) t)`;
    }
    case 'range': {
      // One pass over the values: each value is tested once per range (flags), and each range's
      // aggregates are FILTERed by its flag (ranges may overlap). Comparisons are numeric: exact.
      const flags = facet.ranges.map((range, i) => `${rangeMatches('y.n', range, b, false)} AS in${i}`);
      const aggregates = facet.ranges.flatMap((_, i) => [
        `count(*) FILTER (WHERE z.in${i}) AS c${i}`,
        counting ? `count(DISTINCT z.id) FILTER (WHERE z.in${i}) AS rc${i}` : `0 AS rc${i}`,
        `sum(z.n) FILTER (WHERE z.in${i}) AS t${i}`,
        `min(z.n) FILTER (WHERE z.in${i}) AS mn${i}`,
        `max(z.n) FILTER (WHERE z.in${i}) AS mx${i}`,
        `avg(z.n) FILTER (WHERE z.in${i}) AS av${i}`,
      ]);
      const end = (value: string | undefined) => (value === undefined ? 'NULL::numeric' : b.bind(value, 'numeric'));
      const endText = (value: string | undefined) => (value === undefined ? `'*'` : b.bind(value, 'text'));
      const objects = facet.ranges.map(
        (range, i) =>
          `json_build_object('from', ${end(range.from)}, 'fromStr', ${endText(range.from)}, 'to', ${end(range.to)}, 'toStr', ${endText(range.to)}, ` +
          `'count', s.c${i}${counting ? `, 'resourceCount', s.rc${i}` : ''}, 'total', coalesce(s.t${i}, 0), 'min', s.mn${i}, 'max', s.mx${i}, 'mean', trim_scale(s.av${i}))`,
      );
      return `(SELECT json_build_object('type', 'range', 'dataType', 'number', 'ranges', json_build_array(${objects.join(', ')}))
        FROM (SELECT ${aggregates.join(', ')}
              FROM (SELECT y.id, y.n, ${flags.join(', ')}
                    FROM (SELECT x.id, (x.v)::numeric AS n FROM (${rows}) x WHERE jsonb_typeof(x.v) = 'number') y
                    OFFSET 0) z) s)`; // OFFSET 0: the flags stay computed once, not copied into every FILTER
    }
    case 'filter': {
      const valueItems = facet.items.filter((i) => i.kind !== 'missing');
      const values = valueItems.length > 0 ? `(SELECT count(*) FROM (${rows}) x WHERE ${valueItems.map((i) => valueMatches(i, b)).join(' OR ')})` : '0';
      const missing = facet.items.some((i) => i.kind === 'missing') ? ` + (SELECT count(*) FROM fac r WHERE NOT (${hasValues(facet.path)}))` : '';
      const resources = counting ? `, 'resourceCount', (SELECT count(*) FROM fac r WHERE ${filterCondition({ path: facet.path, items: facet.items }, b)})` : '';
      return `json_build_object('type', 'filter', 'count', ${values}${missing}${resources})`;
    }
  }
}

/** The SQL of the search endpoint. */
@Injectable()
export class SearchRepository {
  constructor(private readonly db: Database) {}

  /**
   * The project's words within each query word's distance (Levenshtein, nearest first), from the
   * vocabulary the write trigger keeps; candidates are narrowed by length before they are judged.
   */
  async findNeighbours(projectKey: string, words: FuzzyWord[]): Promise<string[][]> {
    if (words.length === 0) return [];
    const rows = await this.db.query<{ i: string; word: string }>(
      `SELECT q.i, w.word FROM unnest($2::text[], $3::integer[]) WITH ORDINALITY AS q(word, k, i)
       CROSS JOIN LATERAL (
         SELECT s.word FROM search_word s
         WHERE s.project_key = $1 AND char_length(s.word) BETWEEN char_length(q.word) - q.k AND char_length(q.word) + q.k
           AND s.word <> q.word AND levenshtein_less_equal(s.word, q.word, q.k) <= q.k
         ORDER BY levenshtein_less_equal(s.word, q.word, q.k), s.word COLLATE "C" LIMIT ${FUZZY_MAX_ALTERNATIVES}) w`,
      [projectKey, words.map((w) => w.word), words.map((w) => w.distance)],
    );
    const found = words.map((): string[] => []);
    for (const row of rows) found[Number(row.i) - 1].push(row.word);
    return found;
  }

  /** The whole answer `{limit, offset, count, total, results, facets}` as JSON text built by PostgreSQL. */
  async search(projectKey: string, plan: SearchPlan): Promise<string> {
    const b = new Binder();
    const project = b.bind(projectKey, 'text');
    const resultWhere = plan.resultFilters.map((f) => filterCondition(f, b));
    const facetWhere = plan.facetFilters.map((f) => filterCondition(f, b));
    const order = [...plan.sort.map((s) => `${SORT_COLUMNS[s.field]} ${s.descending ? 'DESC' : 'ASC'}`), 'r.id ASC'].join(', ');
    const facets =
      plan.facets.length === 0 ? `'{}'::json` : `json_build_object(${plan.facets.map((f) => `${b.bind(f.name, 'text')}, ${facetSql(f.facet, b)}`).join(', ')})`;
    const text = `
      WITH base AS MATERIALIZED (${this.matches(project, plan, b)}),
      res AS (SELECT * FROM base r WHERE ${resultWhere.length > 0 ? resultWhere.join(' AND ') : 'TRUE'}),
      fac AS (SELECT * FROM base r WHERE ${facetWhere.length > 0 ? facetWhere.join(' AND ') : 'TRUE'})
      SELECT '{"limit":' || ${b.bind(plan.limit, 'integer')} || ',"offset":' || ${b.bind(plan.offset, 'integer')}
          || ',"count":' || p.count || ',"total":' || (SELECT count(*) FROM res)
          || ',"results":[' || coalesce(p.json, '') || '],"facets":' || (${facets})::text || '}' AS json
      FROM (SELECT count(*) AS count, string_agg(${RESOURCE_JSON}, ',' ORDER BY p.n) AS json
            FROM (SELECT r.id, row_number() OVER (ORDER BY ${order}) AS n FROM res r
                  ORDER BY ${order} LIMIT ${b.bind(plan.limit, 'integer')} OFFSET ${b.bind(plan.offset, 'integer')}) p
            JOIN resource r ON r.id = p.id) p`;
    return (await this.db.one<{ json: string }>(text, b.values))!.json;
  }

  /**
   * The matching resources `r` with their `score`. Text conditions are answered by `resource_search`
   * alone (its narrow rows carry project and `published`); `resource` is joined only when a later
   * stage reads its columns (filters, facets, a sort on another field), and its document only when
   * filters or facets read it.
   */
  private matches(project: string, plan: SearchPlan, b: Binder): string {
    const where = plan.queryFilters.map((filter) => filterCondition(filter, b));
    const needsDocument = plan.facets.length > 0 || plan.queryFilters.length > 0 || plan.resultFilters.length > 0 || plan.facetFilters.length > 0;
    const needsResource = needsDocument || plan.sort.some((s) => s.field !== 'score' && s.field !== 'id');
    const columns =
      'r.id, r.key, r.version, r.published, r.created_at, r.last_modified_at, r.some_property, r.second_property_to_update, ' +
      (needsDocument ? 'r.object_type_property' : 'NULL::jsonb AS object_type_property');
    if (plan.texts.length === 0) {
      where.unshift(`r.project_key = ${project}`, ...(plan.staged ? [] : ['r.published']));
      return `SELECT ${columns}, 0::real AS score FROM resource r WHERE ${where.join(' AND ')}`;
    }
    // One scan of a configuration's partition per text (`config` is a constant: the planner prunes).
    const hits = plan.texts.map((text, i) => {
      const query = textQuery(text, b);
      return `(SELECT s.resource_id AS id, ts_rank(s.vector, ${query}) AS score FROM resource_search s
               WHERE s.config = '${text.config}' AND s.project_key = ${project}${plan.staged ? '' : ' AND s.published'} AND s.vector @@ (${query})) t${i}`;
    });
    const joined = hits.reduce((from, hit, i) => `${from} JOIN ${hit} ON t${i}.id = t0.id`);
    const score = `(${plan.texts.map((_, i) => `t${i}.score`).join(' + ')})::real AS score`;
    if (!needsResource) return `SELECT t0.id, ${score} FROM ${joined}`;
    return `SELECT ${columns}, ${score} FROM ${joined} JOIN resource r ON r.id = t0.id${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  }
}
