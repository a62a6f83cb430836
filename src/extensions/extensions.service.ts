import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/domain-error.js';
import type { PageQueryDto } from '../common/page-query.dto.js';
import { UUID_PATTERN } from '../common/route-params.js';
import { QuerySyntaxError } from '../query-language/lexer.js';
import { checkCondition } from './condition.js';
import { ExtensionCaller } from './extension-caller.js';
import { ExtensionRegistry } from './extension-registry.js';
import {
  DEFAULT_TIMEOUT_MS,
  type ExtensionDestinationDto,
  ExtensionDraftDto,
  ExtensionPageDto,
  ExtensionResponseDto,
  type ExtensionTriggerDto,
  ExtensionUpdateDto,
  MAX_EXTENSIONS_PER_PROJECT,
} from './extension.dto.js';
import { ExtensionErrors } from './extensions.errors.js';
import { extensionsConfig, type ExtensionsConfig } from './extensions.config.js';
import { type ExtensionChanges, ExtensionsRepository, type StoredExtension } from './extensions.repository.js';

/** The extensions of a project (docs/extensions.md): CRUD, the destination's and the conditions' checks. */
@Injectable()
export class ExtensionsService {
  constructor(
    private readonly extensions: ExtensionsRepository,
    private readonly registry: ExtensionRegistry,
    private readonly caller: ExtensionCaller,
    @Inject(extensionsConfig.KEY) private readonly config: ExtensionsConfig,
  ) {}

  async create(projectKey: string, draft: ExtensionDraftDto): Promise<ExtensionResponseDto> {
    this.checkTriggers(draft.triggers, 'triggers');
    const timeoutInMs = this.checkTimeout(draft.timeoutInMs, 'timeoutInMs');
    if (draft.key !== undefined && (await this.extensions.findByKey(projectKey, draft.key))) throw ExtensionErrors.duplicateKey(draft.key);
    if ((await this.extensions.count(projectKey)) >= MAX_EXTENSIONS_PER_PROJECT) throw ExtensionErrors.limitReached(MAX_EXTENSIONS_PER_PROJECT);
    await this.checkDestination(draft.destination);
    const stored = await this.extensions.insertWithinLimit(
      { id: randomUUID(), projectKey, key: draft.key ?? null, destination: destinationOf(draft.destination), triggers: triggersOf(draft.triggers), timeoutInMs },
      MAX_EXTENSIONS_PER_PROJECT,
    );
    if (stored === 'limit') throw ExtensionErrors.limitReached(MAX_EXTENSIONS_PER_PROJECT);
    if (stored === 'duplicate-key') throw ExtensionErrors.duplicateKey(draft.key!);
    this.registry.changed(projectKey);
    return toResponse(stored);
  }

  async list(projectKey: string, { limit, offset }: PageQueryDto): Promise<ExtensionPageDto> {
    const { results, total } = await this.extensions.list(projectKey, limit, offset);
    return { limit, offset, count: results.length, total, results: results.map(toResponse) };
  }

  async get(projectKey: string, id: string): Promise<ExtensionResponseDto> {
    return toResponse(await this.find(projectKey, id));
  }

  async getByKey(projectKey: string, key: string): Promise<ExtensionResponseDto> {
    const stored = await this.extensions.findByKey(projectKey, key);
    if (!stored) throw ExtensionErrors.keyNotFound(key);
    return toResponse(stored);
  }

  /** Applies the actions in order, all or nothing; a new destination's host is checked before anything is stored. */
  async update(projectKey: string, id: string, request: ExtensionUpdateDto): Promise<ExtensionResponseDto> {
    const current = await this.find(projectKey, id);
    if (current.version !== request.version) throw DomainError.concurrentModification(current.version);
    const changes: ExtensionChanges = {};
    for (const [i, action] of request.actions.entries()) {
      switch (action.action) {
        case 'changeDestination':
          await this.checkDestination(action.destination);
          changes.destination = destinationOf(action.destination);
          break;
        case 'changeTriggers':
          this.checkTriggers(action.triggers, `actions[${i}].triggers`);
          changes.triggers = triggersOf(action.triggers);
          break;
        case 'setKey':
          changes.key = action.key ?? null;
          break;
        case 'setTimeoutInMs':
          changes.timeoutInMs = this.checkTimeout(action.timeoutInMs ?? undefined, `actions[${i}].timeoutInMs`);
          break;
      }
    }
    if (changes.key && changes.key !== current.key && (await this.extensions.findByKey(projectKey, changes.key))) throw ExtensionErrors.duplicateKey(changes.key);
    if (request.actions.length === 0) return toResponse(current);
    const updated = await this.extensions.update(projectKey, id, request.version, changes);
    if (updated === 'duplicate-key') throw ExtensionErrors.duplicateKey(changes.key!);
    if (!updated) throw DomainError.concurrentModification((await this.find(projectKey, id)).version);
    this.registry.changed(projectKey);
    return toResponse(updated);
  }

  async delete(projectKey: string, id: string, version: number): Promise<ExtensionResponseDto> {
    const deleted = UUID_PATTERN.test(id) ? await this.extensions.delete(projectKey, id, version) : undefined;
    if (deleted) {
      this.registry.changed(projectKey);
      return toResponse(deleted);
    }
    throw DomainError.concurrentModification((await this.find(projectKey, id)).version);
  }

  private async find(projectKey: string, id: string): Promise<StoredExtension> {
    const stored = UUID_PATTERN.test(id) ? await this.extensions.findById(projectKey, id) : undefined;
    if (!stored) throw ExtensionErrors.notFound(id);
    return stored;
  }

  /** Each condition is a predicate of the query language over the resource (400 InvalidInput naming line and column). */
  private checkTriggers(triggers: ExtensionTriggerDto[], path: string): void {
    for (const [i, trigger] of triggers.entries()) {
      if (trigger.condition === undefined) continue;
      try {
        checkCondition(trigger.condition);
      } catch (error) {
        if (error instanceof QuerySyntaxError) throw ExtensionErrors.badCondition(`${path}[${i}].condition`, error.message);
        throw error;
      }
    }
  }

  private checkTimeout(timeoutInMs: number | undefined, field: string): number {
    if (timeoutInMs === undefined) return Math.min(DEFAULT_TIMEOUT_MS, this.config.maxTimeoutMs);
    if (timeoutInMs > this.config.maxTimeoutMs) throw ExtensionErrors.timeoutTooLong(field, timeoutInMs, this.config.maxTimeoutMs);
    return timeoutInMs;
  }

  /** The host rules of every outbound connection (the same setting and checks as webhooks), before anything is stored. */
  private async checkDestination(destination: ExtensionDestinationDto): Promise<void> {
    const refusal = await this.caller.refusal(destination.url);
    if (refusal) throw ExtensionErrors.hostRefused(refusal);
  }
}

/** The destination as stored: listed members only. */
function destinationOf(d: ExtensionDestinationDto): ExtensionDestinationDto {
  return {
    type: 'HTTP',
    url: d.url,
    ...(d.authentication ? { authentication: { type: 'AuthorizationHeader', headerValue: d.authentication.headerValue } } : {}),
  };
}

function triggersOf(triggers: ExtensionTriggerDto[]): ExtensionTriggerDto[] {
  return triggers.map((t) => ({ resourceTypeId: 'resource', actions: [...t.actions], ...(t.condition !== undefined ? { condition: t.condition } : {}) }));
}

/** `****` and the last 4 characters: what every answer shows of an Authorization header's value. */
export function maskHeaderValue(value: string): string {
  return `****${value.slice(-4)}`;
}

/** The answer: listed fields only, the header value masked. */
export function toResponse(e: StoredExtension): ExtensionResponseDto {
  const { authentication } = e.destination;
  return {
    id: e.id,
    version: e.version,
    ...(e.key !== null ? { key: e.key } : {}),
    destination: {
      type: 'HTTP',
      url: e.destination.url,
      ...(authentication ? { authentication: { type: 'AuthorizationHeader', headerValue: maskHeaderValue(authentication.headerValue) } } : {}),
    },
    triggers: e.triggers,
    timeoutInMs: e.timeoutInMs,
    createdAt: e.createdAt,
    lastModifiedAt: e.lastModifiedAt,
  };
}
