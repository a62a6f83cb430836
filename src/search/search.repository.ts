import { Injectable } from '@nestjs/common';
import { Database, type Statement } from '../database/database.js';
import type { ColumnSpec, SearchPath } from '../query-language/catalogue.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { parseFacet, parseFilter, type FacetExpression, type FilterExpression, type FilterItem, type NumericRange } from '../query-language/search-expression.parser.js';
import { statementTemplate } from '../database/named-statement.js';
import { RESOURCE_JSON } from '../resource/resource-write.js';
import { boundedItems, joinChunks, type ItemChunk } from '../database/bounded-list.js';
import { FUZZY_MAX_ALTERNATIVES } from './text-search.js';
import { SEARCH_VALUES_CONFIG } from '../database/migrations/1763700000016-search-values-row.js';

/** One `text.<lang>` condition: every word must match one of its alternatives (the word and its fuzzy neighbours). */
export interface TextCondition {
  /** A PostgreSQL text-search configuration from `LANGUAGE_CONFIGS` (never user text). */
  config: string;
  words: string[][];
}

/** `score` (relevance) or one of the resource's sortable fields. */
export type SortField = string;

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
  /** The most bytes the page's results may take (the bound of `ListAnswers`, at most HTTP_MAX_RESPONSE_BYTES). */
  maxBytes: number;
}

export interface FuzzyWord {
  word: string;
  distance: number;
}

const SORT_FIELDS = RESOURCE_CATALOGUE.sortFields;

/** What each sort orders by: relevance, or a field (strings byte-wise). */
const SORT_COLUMNS: ReadonlyMap<SortField, string> = new Map([['score', 'r.score'], ...[...SORT_FIELDS].map(([name, f]): [string, string] => [name, f.sql])]);

/** Sorts `resource_search` answers by itself (the fields it carries a copy of); the others read `resource`. */
const ROW_SORTS: ReadonlySet<SortField> = new Set(['score', ...[...SORT_FIELDS.values()].filter((f) => f.searchCopy !== undefined).map((f) => f.name)]);

/** The resource's columns `resource_search` carries, as the search's rows name them (`s.resource_id AS id`). */
const COPIED_COLUMNS: ReadonlyMap<string, string> = new Map(
  RESOURCE_CATALOGUE.fields
    .filter((f): f is ColumnSpec => f.kind === 'column' && f.searchCopy !== undefined)
    .map((f) => [f.column, f.searchCopy === f.column ? `s.${f.column}` : `s.${f.searchCopy} AS ${f.column}`]),
);

/** The columns a sort or a path may need that `resource_search` does not carry: read from `resource`. */
const RESOURCE_COLUMNS = [
  ...new Set([
    ...[...SORT_FIELDS.values()].filter((f) => f.searchCopy === undefined).map((f) => f.column),
    ...[...RESOURCE_CATALOGUE.searchPaths.values()].flatMap((p) => (p.source.kind === 'column' && !p.source.copied ? [p.source.column] : [])),
  ]),
]
  .map((c) => `r.${c}`)
  .join(', ');

/** Terms of a terms facet, at most (docs/rules.md#search). */
const MAX_TERMS = 200;

/** Collects bound values; every value reaching SQL goes through `bind`. */
class Binder {
  readonly values: unknown[] = [];
  bind(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }
}

/**
 * The `resource_search` column holding a path's values (numeric[] or text[]), as the catalogue names it
 * (migration 1763700000007 created them); names come from the catalogue, never from input.
 */
function valuesColumn(path: SearchPath): string | undefined {
  return path.source.kind === 'values' ? path.source.column : undefined;
}

/**
 * The values row of each match `s` of a text, joined after the match: `OFFSET 0` keeps the subquery
 * from being merged into the join, so the planner cannot drive the search from the values partition.
 * It did, on a misestimated filter: a range filter over 100,000 values rows took 300 ms where the text
 * matched 4,400 (20–30 ms).
 */
const valuesOfMatch = (columns: string[]) =>
  `CROSS JOIN LATERAL (SELECT ${columns.map((c) => `v.${c}`).join(', ')} FROM resource_search v
                      WHERE v.resource_id = s.resource_id AND v.config = '${SEARCH_VALUES_CONFIG}' OFFSET 0) v`;

/** The SQL type of a path's single values. */
const valueType = (path: SearchPath) => (path.dataType === 'number' ? 'numeric' : path.dataType);

/** One row `(id, v)` per value the resources of `fac` hold at a path (`v` numeric, text or boolean). */
function valueRows(path: SearchPath): string {
  const source = path.source;
  if (source.kind === 'values') return `SELECT r.id, unnest(r.${source.column}) AS v FROM fac r`;
  return `SELECT r.id, ${source.sql} AS v FROM fac r${source.nullable ? ` WHERE r.${source.column} IS NOT NULL` : ''}`;
}

/** How many values the resources `r` hold at a path (an aggregate). */
function valueCount(path: SearchPath): string {
  const source = path.source;
  if (source.kind === 'values') return `coalesce(sum(cardinality(r.${source.column})), 0)`;
  return source.nullable ? `count(r.${source.column})` : 'count(*)';
}

/** The resource `r` holds at least one value at the path. */
function hasValues(path: SearchPath): string {
  const source = path.source;
  if (source.kind === 'values') return `cardinality(r.${source.column}) > 0`;
  return source.nullable ? `r.${source.column} IS NOT NULL` : 'TRUE';
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

/**
 * A filter range (both ends included) as a `numrange`, tested against an array's elements with
 * `@> ANY` (no subquery per row: about 4 times faster). An unbounded end is NULL; a range whose `from`
 * is above its `to` is NULL, which matches nothing (as the comparisons did), where `numrange` would fail.
 */
function valuesRange(range: NumericRange, b: Binder): string {
  const from = range.from === undefined ? 'NULL' : b.bind(range.from, 'numeric');
  const to = range.to === undefined ? 'NULL' : b.bind(range.to, 'numeric');
  const value = `numrange(${from}, ${to}, '[]')`;
  return range.from !== undefined && range.to !== undefined ? `(CASE WHEN ${from} <= ${to} THEN ${value} END)` : value;
}

/** A condition on one value `x.v` for a value, range or `exists` item. */
function valueMatches(path: SearchPath, item: FilterItem, b: Binder): string {
  if (isValue(item)) return `x.v = ${b.bind(item.value, valueType(path))}`;
  if (item.kind === 'range') return `(${rangeMatches('x.v', item.range, b, true)})`;
  return item.kind === 'exists' ? 'TRUE' : 'FALSE';
}

/**
 * A filter as a condition on `r`: any item matches. Values of an array path are one overlap test on
 * its native array; ranges compare as numeric (exact 64-bit).
 */
function filterCondition(filter: FilterExpression, b: Binder): string {
  const { path } = filter;
  const source = path.source;
  const parts: string[] = [];
  const values = filter.items.filter(isValue).map((item) => item.value);
  if (values.length > 0) {
    const list = b.bind(values, `${valueType(path)}[]`);
    parts.push(source.kind === 'column' ? `${source.sql} = ANY(${list})` : `r.${source.column} && ${list}`);
  }
  for (const item of filter.items) {
    if (item.kind === 'range') {
      parts.push(
        source.kind === 'column'
          ? rangeMatches(source.sql, item.range, b, true)
          : `${valuesRange(item.range, b)} @> ANY(r.${source.column})`,
      );
    } else if (item.kind === 'exists' || item.kind === 'missing') {
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
      const byTerm = (v: string) => (facet.path.dataType === 'text' ? `${v} COLLATE "C"` : v);
      // The terms are counted and only the first sorted (a top-N sort, not a sort of every term);
      // total and missing come from one pass over the resources (array lengths), not from the terms.
      return `(WITH top AS (SELECT x.v, count(*) AS c${counting ? ', count(DISTINCT x.id) AS rc' : ''} FROM (${rows}) x
                           GROUP BY 1 ORDER BY count(*) DESC, ${byTerm('x.v')} LIMIT ${MAX_TERMS})
        SELECT json_build_object('type', 'terms', 'dataType', '${facet.path.dataType}', 'missing', t.missing,
          'total', t.total, 'other', t.total - coalesce((SELECT sum(g.c) FROM top g), 0),
          'terms', coalesce((SELECT json_agg(json_build_object('term', g.v, 'count', g.c${counting ? `, 'resourceCount', g.rc` : ''}) ORDER BY g.c DESC, ${byTerm('g.v')}) FROM top g), '[]'))
        FROM (SELECT count(*) FILTER (WHERE NOT (${hasValues(facet.path)})) AS missing, ${valueCount(facet.path)} AS total FROM fac r) t)`;
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
      ]);
      const end = (value: string | undefined) => (value === undefined ? 'NULL::numeric' : b.bind(value, 'numeric'));
      const endText = (value: string | undefined) => (value === undefined ? `'*'` : b.bind(value, 'text'));
      const objects = facet.ranges.map(
        (range, i) =>
          `json_build_object('from', ${end(range.from)}, 'fromStr', ${endText(range.from)}, 'to', ${end(range.to)}, 'toStr', ${endText(range.to)}, ` +
          `'count', s.c${i}${counting ? `, 'resourceCount', s.rc${i}` : ''}, 'total', coalesce(s.t${i}, 0), 'min', s.mn${i}, 'max', s.mx${i}, 'mean', trim_scale(s.t${i} / nullif(s.c${i}, 0)))`,
      );
      return `(SELECT json_build_object('type', 'range', 'dataType', 'number', 'ranges', json_build_array(${objects.join(', ')}))
        FROM (SELECT ${aggregates.join(', ')}
              FROM (SELECT y.id, y.n, ${flags.join(', ')}
                    FROM (SELECT x.id, x.v AS n FROM (${rows}) x) y
                    OFFSET 0) z) s)`; // OFFSET 0: the flags stay computed once, not copied into every FILTER
    }
    case 'filter': {
      const valueItems = facet.items.filter((i) => i.kind !== 'missing');
      const values = valueItems.length > 0 ? `(SELECT count(*) FROM (${rows}) x WHERE ${valueItems.map((i) => valueMatches(facet.path, i, b)).join(' OR ')})` : '0';
      const missing = facet.items.some((i) => i.kind === 'missing') ? ` + (SELECT count(*) FROM fac r WHERE NOT (${hasValues(facet.path)}))` : '';
      const resources = counting ? `, 'resourceCount', (SELECT count(*) FROM fac r WHERE ${filterCondition({ path: facet.path, items: facet.items }, b)})` : '';
      return `json_build_object('type', 'filter', 'count', ${values}${missing}${resources})`;
    }
  }
}

/** Words pg_trgm reads as one word of exactly these characters, whatever the database's locale. */
const PLAIN_WORD = `'^[a-z]+$'`;

/** The vocabulary words `s` of the project that `where` admits, judged exactly: within distance `q.k` of `q.word`. */
const judged = (where: string) => `
    SELECT s.word, levenshtein_less_equal(s.word, q.word, q.k) AS distance FROM search_word s
    WHERE s.project_key = $1 AND ${where}
      AND s.word <> q.word AND levenshtein_less_equal(s.word, q.word, q.k) <= q.k`;

const BY_LENGTH = 'char_length(s.word) BETWEEN char_length(q.word) - q.k AND char_length(q.word) + q.k';

/**
 * Each query word's neighbours ($2 words, $3 distances, $1 project): every candidate is judged by
 * `levenshtein_less_equal` (the same words, in the same order, as judging the whole vocabulary).
 *
 * Candidates of a plain word q (a–z) at distance k come from the trigram index (migration 1763700000009).
 * It misses none: let A be q's trigrams (pg_trgm pads a word with two spaces in front and one behind,
 * so q has |q| + 1 trigram positions; A is the set of distinct ones) and B those of a plain word w
 * within distance k. Take an alignment of q and w with at most k edits. A trigram position of q whose
 * three characters are all kept, unchanged and adjacent in w reads the same in w; a substitution or
 * deletion of a character spoils the positions that cover it (3 at most), an insertion those that span
 * it (2). So at most 3k positions of q are spoiled, and a trigram of A is missing from B only if all its
 * positions are spoiled: |A ∩ B| ≥ |A| − 3k. The same from w's side: |B \ A| ≤ 3k, so |A ∪ B| ≤ |A| + 3k,
 * and pg_trgm's similarity |A ∩ B| / |A ∪ B| ≥ (|A| − 3k) / (|A| + 3k). With `pg_trgm.similarity_threshold`
 * a little below that bound (float4 arithmetic in pg_trgm is far finer than 1e-6), `w % q` holds, and
 * its GIN scan, which admits a row when at least threshold × |A| trigrams of A are present, admits w.
 * The threshold is set for this statement only (`set_config(…, true)`) by an InitPlan of the trigram
 * branch's one-time filter, which runs before that branch's scan for each query word (EXPLAIN shows it;
 * a word that skips the branch gets '1', a valid value should the filter evaluate it anyway).
 *
 * The bound needs both words plain: pg_trgm splits words at characters that are not letters or digits
 * in the database's locale (`foo-bar` is two words; `ä` is a letter or not, by locale), so for other
 * words it proves nothing. Plain words are therefore matched by the index, the others (few) by length
 * from `search_word_other_length_idx`; and a query word that is not plain, or whose bound
 * |A| − 3k is below 2 (every word of 6 letters at distance 2, or of 3 letters at distance 1: a bound of 1 admits
 * every word sharing one trigram, a slower scan than by length), is matched against every word of about its
 * length, as before the index.
 */
const NEIGHBOURS: Statement = {
  name: 'search_neighbours',
  text: `
  SELECT q.i, w.word
  FROM (SELECT q.i, q.word, q.k, q.indexed,
               CASE WHEN q.indexed THEN ((q.trigrams - 3 * q.k)::float8 / (q.trigrams + 3 * q.k) - 1e-6)::text ELSE '1' END AS threshold
        FROM (SELECT q.i, q.word, q.k, cardinality(show_trgm(q.word)) AS trigrams,
                     q.word ~ ${PLAIN_WORD} AND cardinality(show_trgm(q.word)) - 3 * q.k >= 2 AS indexed
              FROM unnest($2::text[], $3::integer[]) WITH ORDINALITY AS q(word, k, i)) q) q
  CROSS JOIN LATERAL (
    SELECT c.word FROM (${judged(`q.indexed AND (SELECT set_config('pg_trgm.similarity_threshold', q.threshold, true)) IS NOT NULL AND s.word % q.word`)}
      UNION${judged(`q.indexed AND s.word !~ ${PLAIN_WORD} AND ${BY_LENGTH}`)}
      UNION${judged(`NOT q.indexed AND ${BY_LENGTH}`)}) c
    ORDER BY c.distance, c.word COLLATE "C" LIMIT ${FUZZY_MAX_ALTERNATIVES}) w`,
};

/** The SQL of the search endpoint. */
@Injectable()
export class SearchRepository {
  constructor(private readonly db: Database) {}

  /**
   * The project's words within each query word's distance (Levenshtein, nearest first, then byte-wise),
   * from the vocabulary the write trigger keeps. See NEIGHBOURS for how candidates are found.
   */
  async findNeighbours(projectKey: string, words: FuzzyWord[]): Promise<string[][]> {
    if (words.length === 0) return [];
    const rows = await this.db.reader().query<{ i: string; word: string }>(NEIGHBOURS, [projectKey, words.map((w) => w.word), words.map((w) => w.distance)], projectKey);
    const found = words.map((): string[] => []);
    for (const row of rows) found[Number(row.i) - 1].push(row.word);
    return found;
  }

  /**
   * The whole answer `{limit, offset, count, total, results, facets}` as JSON text, its parts built by
   * the database and joined here; null when the page's results would pass `plan.maxBytes`.
   */
  async search(projectKey: string, plan: SearchPlan): Promise<string | null> {
    const { text, values } = searchStatement(projectKey, plan);
    // The results in rows of about a MiB, null when they pass plan.maxBytes (boundedItems), between the
    // answer's other members, which every row carries.
    const page = joinChunks(await this.db.reader().query<ItemChunk & { head: string; tail: string }>(text, values, projectKey));
    return page.results === null ? null : page.head + page.results + page.tail;
  }
}

/** The statement of a search and its values, in the order its placeholders were bound. */
function searchStatement(projectKey: string, plan: SearchPlan): { text: string; values: unknown[] } {
  const b = new Binder();
  const project = b.bind(projectKey, 'text');
  const resultWhere = plan.resultFilters.map((f) => filterCondition(f, b));
  const facetWhere = plan.facetFilters.map((f) => filterCondition(f, b));
  const order = [...plan.sort.map((s) => `${SORT_COLUMNS.get(s.field)} ${s.descending ? 'DESC' : 'ASC'}`), 'r.id ASC'].join(', ');
  const facets =
    plan.facets.length === 0 ? `'{}'::json` : `json_build_object(${plan.facets.map((f) => `${b.bind(f.name, 'text')}, ${facetSql(f.facet, b)}`).join(', ')})`;
  // base is computed once; res and fac read it where they are used (no copy of its rows), except fac
  // when facet filters narrow it (then once). The page is numbered in the order its LIMIT sort yields.
  const text = `
    WITH base AS MATERIALIZED (${matches(project, plan, b)}),
    res AS NOT MATERIALIZED (SELECT * FROM base r WHERE ${resultWhere.length > 0 ? resultWhere.join(' AND ') : 'TRUE'}),
    fac AS ${facetWhere.length > 0 ? `MATERIALIZED (SELECT * FROM base r WHERE ${facetWhere.join(' AND ')})` : 'NOT MATERIALIZED (SELECT * FROM base)'}
    SELECT p.count, p.results, p.chunk,
        '{"limit":' || ${b.bind(plan.limit, 'integer')} || ',"offset":' || ${b.bind(plan.offset, 'integer')}
        || ',"count":' || p.count || ',"total":' || (SELECT count(*) FROM res) || ',"results":' AS head,
        ',"facets":' || (${facets})::text || '}' AS tail
    FROM (${boundedItems(
      `SELECT ${RESOURCE_JSON} AS j, p.n
       FROM (SELECT q.id, row_number() OVER () AS n
             FROM (SELECT r.id FROM res r ORDER BY ${order} LIMIT ${b.bind(plan.limit, 'integer')} OFFSET ${b.bind(plan.offset, 'integer')}) q) p
       JOIN resource r ON r.id = p.id`,
      b.bind(plan.maxBytes, 'bigint'),
    )}) p`;
  return { text, values: b.values };
}

/**
 * The matching resources `r` with their `score`, answered by `resource_search` alone: a text's
 * configuration partition carries project, `published`, key and creation time, and the values
 * partition (read alone without text) carries them too with every path's values. The values are read
 * only when a filter or facet needs them (with text, from each match's values row by primary key), and
 * `resource` only for a sort on another field or a `version` path.
 */
function matches(project: string, plan: SearchPlan, b: Binder): string {
  const filters = [...plan.queryFilters, ...plan.resultFilters, ...plan.facetFilters];
  const paths = [...filters.map((f) => f.path), ...plan.facets.map((f) => f.facet.path)];
  const needsResource = paths.some((p) => p.source.kind === 'column' && !p.source.copied) || plan.sort.some((s) => !ROW_SORTS.has(s.field));
  // Only the values columns some filter or facet reads: base's rows are copied once and read by every stage.
  const values = [...new Set(paths.map(valuesColumn).filter((c): c is string => c !== undefined))];
  const columns = [...COPIED_COLUMNS.keys(), ...values];
  // The first text's rows carry every column (the values from the values row `v`); the others only the id they are joined on.
  const copied = [...COPIED_COLUMNS.values()].join(', ');
  const published = plan.staged ? '' : ' AND s.published';
  let rows: string;
  if (plan.texts.length === 0) {
    rows = `SELECT ${[copied, ...values.map((c) => `s.${c}`)].join(', ')}, 0::real AS score
            FROM resource_search s WHERE s.config = '${SEARCH_VALUES_CONFIG}' AND s.project_key = ${project}${published}`;
  } else {
    // One scan of a configuration's partition per text (`config` is a constant: the planner prunes).
    const hits = plan.texts.map((text, i) => {
      const query = textQuery(text, b);
      const withValues = i === 0 && values.length > 0;
      const selected = i === 0 ? [copied, ...values.map((c) => `v.${c}`)].join(', ') : COPIED_COLUMNS.get('id');
      return `(SELECT ${selected}, ts_rank(s.vector, ${query}) AS score FROM resource_search s
               ${withValues ? valuesOfMatch(values) : ''}
               WHERE s.config = '${text.config}' AND s.project_key = ${project}${published} AND s.vector @@ (${query})) t${i}`;
    });
    const joined = hits.reduce((from, hit, i) => `${from} JOIN ${hit} ON t${i}.id = t0.id`);
    rows = `SELECT ${columns.map((c) => `t0.${c}`).join(', ')}, (${plan.texts.map((_, i) => `t${i}.score`).join(' + ')})::real AS score FROM ${joined}`;
  }
  if (needsResource) {
    rows = `SELECT m.*, ${RESOURCE_COLUMNS}
            FROM (${rows}) m JOIN resource r ON r.id = m.id`;
  }
  const where = plan.queryFilters.map((filter) => filterCondition(filter, b));
  return where.length === 0 ? rows : `SELECT * FROM (${rows}) r WHERE ${where.join(' AND ')}`;
}

/** Two searches as `npm run sql` renders them: filters and a facet without text, and a fuzzy text by relevance. */
const EXAMPLE_PLANS: SearchPlan[] = [
  {
    staged: false,
    texts: [],
    queryFilters: [parseFilter(RESOURCE_CATALOGUE, 'published:true')],
    resultFilters: [parseFilter(RESOURCE_CATALOGUE, 'objectTypeProperty.arrayOfIntExample:range (1 to 10)')],
    facetFilters: [],
    facets: [{ name: 'key', facet: parseFacet(RESOURCE_CATALOGUE, 'key') }],
    sort: [{ field: 'createdAt', descending: true }],
    limit: 20,
    offset: 0,
    maxBytes: 1_048_576,
  },
  {
    staged: false,
    texts: [{ config: 'english', words: [['red', 'rod'], ['chair']] }],
    queryFilters: [],
    resultFilters: [],
    facetFilters: [],
    facets: [],
    sort: [{ field: 'score', descending: true }],
    limit: 20,
    offset: 0,
    maxBytes: 1_048_576,
  },
];

export const SEARCH_SQL = {
  neighbours: NEIGHBOURS,
  search: statementTemplate(EXAMPLE_PLANS.map((plan): [SearchPlan] => [plan]), (plan: SearchPlan) => searchStatement('', plan).text),
};
