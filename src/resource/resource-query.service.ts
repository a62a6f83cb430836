import { Inject, Injectable } from '@nestjs/common';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { ResourceQueryDto } from './query/query.dto.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { pageJson, predicatePlan } from '../query-language/predicate-query.js';
import type { Variables } from '../query-language/where-sql.js';
import { ResourceQueryRepository } from './resource-query.repository.js';

/** GET /{projectKey}/resource/sorted-query-parameters (docs/rules.md#query-language). */
@Injectable()
export class ResourceQueryService {
  constructor(
    private readonly repository: ResourceQueryRepository,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {}

  /** The page as JSON text `{limit, offset, count, total?, results}`; results are built by PostgreSQL. */
  async query(projectKey: string, query: ResourceQueryDto, variables: Variables): Promise<string> {
    const plan = predicatePlan(RESOURCE_CATALOGUE, query, variables, projectKey);
    const max = this.http.maxResponseBytes;
    return pageJson(plan, await this.repository.findPage(projectKey, plan, max), max);
  }
}
