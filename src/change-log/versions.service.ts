import { Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { DomainError } from '../common/domain-error.js';
import { ListAnswers } from '../database/list-answers.js';
import type { PageQueryDto } from '../common/page-query.dto.js';
import { pageJson } from '../query-language/predicate-query.js';
import { tooLarge } from '../database/bounded-list.js';
import { VersionsRepository } from './versions.repository.js';

/** A version number as stored: a PostgreSQL integer. A larger one names no version (404). */
const MAX_VERSION = 2_147_483_647;

/**
 * The version history of a resource (docs/change-log-and-subscriptions.md#change-log). It outlives the resource: after a delete both
 * reads still answer. Ids reach this service as UUIDs and versions as digits (`@ParamPatterns`).
 */
@Injectable()
export class VersionsService {
  constructor(
    private readonly versions: VersionsRepository,
    private readonly answers: ListAnswers,
  ) {}

  /** A page of at most 500 small versions: never past the first bound of ListAnswers, so one statement. */
  async list(projectKey: string, id: string, { limit, offset }: PageQueryDto, whenSent: WhenSent): Promise<string> {
    return this.answers.build(projectKey, whenSent, async (max) => {
      const page = await this.versions.findPage(projectKey, id, limit, offset);
      if (page.total === 0) throw noHistory(id);
      return pageJson({ limit, offset, withTotal: true }, page, max);
    });
  }

  /**
   * `list` for several resources (UUIDs) at once, one statement: each page's JSON text by id, or undefined
   * for an id without history. At most 500 versions in all (the GraphQL cost limit), within the first bound.
   */
  async listMany(projectKey: string, ids: readonly string[], { limit, offset }: PageQueryDto, whenSent: WhenSent): Promise<Map<string, string | undefined>> {
    const { pages } = await this.answers.build(projectKey, whenSent, async (max) => {
      const found = await this.versions.findPages(projectKey, ids, limit, offset);
      const pages = new Map(ids.map((id) => {
        const page = found.get(id);
        return [id, page && page.total > 0 ? pageJson({ limit, offset, withTotal: true }, page, max) : undefined];
      }));
      let bytes = 0;
      for (const json of pages.values()) bytes += json?.length ?? 0;
      if (bytes > max) throw tooLarge(max);
      return { json: '', pages };
    });
    return pages;
  }

  async get(projectKey: string, id: string, version: string): Promise<string> {
    const number = Number(version);
    const representation = number <= MAX_VERSION ? await this.versions.findRepresentation(projectKey, id, number) : undefined;
    if (representation === undefined) throw DomainError.notFound(`The resource with ID '${id}' has no version ${version}.`);
    return representation;
  }
}

function noHistory(id: string): DomainError {
  return DomainError.notFound(`The resource with ID '${id}' has no version history.`);
}
