import { Inject, Injectable } from '@nestjs/common';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { tooLarge } from '../database/bounded-list.js';
import { DomainError } from '../common/domain-error.js';
import { QUERY_LIMITS, ResourceQueryDto } from './query/query.dto.js';
import { QuerySyntaxError } from '../query-language/lexer.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { orderBy, parseSort } from '../query-language/sort-expand.js';
import { SqlParams, Variables, WhereHints, whereToSql } from '../query-language/where-sql.js';
import { ResourceQueryRepository } from './resource-query.repository.js';

/** GET /{projectKey}/resource/sorted-query-parameters (CONTRACT.md §5, §10). */
@Injectable()
export class ResourceQueryService {
  constructor(
    private readonly repository: ResourceQueryRepository,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {}

  /** The page as JSON text `{limit, offset, count, total?, results}`; results are built by PostgreSQL. */
  async query(projectKey: string, query: ResourceQueryDto, variables: Variables): Promise<string> {
    const params = new SqlParams(2);
    const hints: WhereHints = { containment: false };
    let where: string;
    try {
      where = whereToSql(RESOURCE_CATALOGUE, query.where ?? [], variables, params, projectKey, hints);
    } catch (error) {
      if (error instanceof QuerySyntaxError) throw DomainError.invalidInput(`Malformed parameter: where: ${error.message}`);
      throw error;
    }
    const limit = query.limit ?? QUERY_LIMITS.defaultLimit;
    const offset = query.offset ?? 0;
    const withTotal = query.withTotal ?? true;
    const page = await this.repository.findPage(projectKey, {
      where,
      values: params.values,
      orderBy: orderBy(RESOURCE_CATALOGUE, (query.sort ?? []).map(parseSort)),
      limit,
      offset,
      withTotal,
      matchesFirst: hints.containment,
      maxBytes: this.http.maxResponseBytes,
    });
    if (page.results === null) throw tooLarge(this.http.maxResponseBytes);
    const total = withTotal ? `"total":${page.total},` : '';
    return `{"limit":${limit},"offset":${offset},"count":${page.count},${total}"results":${page.results}}`;
  }
}
