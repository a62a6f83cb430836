import { Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { DomainError } from '../common/domain-error.js';
import { ListAnswers } from '../database/list-answers.js';
import { MESSAGE_CATALOGUE } from '../query-language/message.catalogue.js';
import { pageJson, predicatePlan } from '../query-language/predicate-query.js';
import type { Variables } from '../query-language/where-sql.js';
import { MESSAGE_DEFAULT_SORT, MessageQueryDto } from './messages.dto.js';
import { MessagesRepository } from './messages.repository.js';

/** The messages of the change log (docs/change-log-and-subscriptions.md#change-log), read as JSON text built by the database. */
@Injectable()
export class MessagesService {
  constructor(
    private readonly messages: MessagesRepository,
    private readonly answers: ListAnswers,
  ) {}

  /** The page `{limit, offset, count, total?, results}`: the same language, errors and paging as the resource query. */
  async query(projectKey: string, query: MessageQueryDto, variables: Variables, whenSent: WhenSent): Promise<string> {
    const plan = predicatePlan(MESSAGE_CATALOGUE, query, variables, projectKey, MESSAGE_DEFAULT_SORT);
    return this.answers.build(projectKey, whenSent, async (max) => pageJson(plan, await this.messages.findPage(projectKey, plan, max), max));
  }

  /** `id` is a UUID: the route matches nothing else (`@ParamPatterns`). */
  async getById(projectKey: string, id: string): Promise<string> {
    const json = await this.messages.findJsonById(projectKey, id);
    if (json === undefined) throw DomainError.notFound(`The message with ID '${id}' was not found.`);
    return json;
  }
}
