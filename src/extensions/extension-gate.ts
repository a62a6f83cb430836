import { Injectable } from '@nestjs/common';
import { DomainError, type ErrorDetail } from '../common/domain-error.js';
import { toJsonText } from '../common/lossless-json.js';
import type { ResourceValue } from './condition.js';
import { ExtensionCaller } from './extension-caller.js';
import { type ActiveExtension, ExtensionRegistry, type ProjectExtensions } from './extension-registry.js';
import type { TriggerAction } from './extension.dto.js';
import { ExtensionErrors } from './extensions.errors.js';

/**
 * The extensions' say on one write (docs/extensions.md): the project's extensions (from memory), which of
 * them apply to the resource as the write would leave it, and their calls, made concurrently and with no
 * transaction or lock held. Their answers are taken in the order the extensions were created: the first
 * refusal or failure decides the error; otherwise the update actions of all, validated by the writer's
 * `validate` (which throws the DomainError of a client's invalid actions), in that order.
 */
@Injectable()
export class ExtensionGate {
  constructor(
    private readonly registry: ExtensionRegistry,
    private readonly caller: ExtensionCaller,
  ) {}

  of(projectKey: string): Promise<ProjectExtensions> {
    return this.registry.of(projectKey);
  }

  /** Calls `extensions` about the write; the actions they add (none: go on as requested), or throws the write's error. */
  async check<A>(
    extensions: readonly ActiveExtension[],
    kind: TriggerAction,
    resource: ResourceValue,
    requestId: string,
    validate: (actions: unknown[]) => A[],
  ): Promise<A[]> {
    const body = `{"action":"${kind}","resource":{"typeId":"resource","id":${JSON.stringify(resource.id)},"obj":${toJsonText(resource)}}}`;
    const outcomes = await Promise.all(extensions.map((e) => this.caller.call(e.target, body, requestId)));
    const added: A[] = [];
    for (const [i, result] of outcomes.entries()) {
      const extension = extensions[i].target;
      switch (result.outcome) {
        case 'ok':
          break;
        case 'refused':
          throw ExtensionErrors.refused(extension, result.errors);
        case 'bad_response':
          throw ExtensionErrors.badResponse(extension, result.statusCode, result.body);
        case 'no_response':
          throw ExtensionErrors.noResponse(extension);
        case 'actions':
          added.push(...validActions(extension, result.actions, validate));
          break;
      }
    }
    return added;
  }
}

/** The extension's actions as update actions of the resource (validated like a client's), or its 400 ExtensionUpdateActionsFailed. */
function validActions<A>(extension: ActiveExtension['target'], actions: unknown[], validate: (actions: unknown[]) => A[]): A[] {
  try {
    return validate(actions);
  } catch (error) {
    if (error instanceof DomainError) throw ExtensionErrors.actionsFailed(extension, error.errors as ErrorDetail[]);
    throw error;
  }
}
