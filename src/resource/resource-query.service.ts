import { Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { ListAnswers } from '../database/list-answers.js';
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
    private readonly answers: ListAnswers,
  ) {}

  /**
   * The page as JSON text `{limit, offset, count, total?, results}`; results are built by PostgreSQL,
   * within the project's share of memory until the answer has been sent (ListAnswers).
   */
  async query(projectKey: string, query: ResourceQueryDto, variables: Variables, whenSent: WhenSent): Promise<string> {
    const plan = predicatePlan(RESOURCE_CATALOGUE, query, variables, projectKey);
    return this.answers.build(projectKey, whenSent, async (max) => pageJson(plan, await this.repository.findPage(projectKey, plan, max), max));
  }
}
