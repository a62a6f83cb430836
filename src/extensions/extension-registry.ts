import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { compileCondition, type Condition, type ResourceValue } from './condition.js';
import type { CallTarget } from './extension-caller.js';
import type { TriggerAction } from './extension.dto.js';
import { extensionsConfig, type ExtensionsConfig } from './extensions.config.js';
import { ExtensionsRepository, type StoredExtension } from './extensions.repository.js';

/** An extension as writes use it: whom to call, and when. */
export interface ActiveExtension {
  target: CallTarget;
  triggers: Array<{ create: boolean; update: boolean; condition?: Condition }>;
}

/** The extensions of one project, in creation order. */
export class ProjectExtensions {
  /** Whether any extension has a trigger of the kind: without one, a write of that kind calls nothing and reads nothing more. */
  readonly triggers: Readonly<Record<TriggerAction, boolean>>;

  constructor(
    readonly revision: string,
    readonly extensions: readonly ActiveExtension[],
  ) {
    this.triggers = {
      Create: extensions.some((e) => e.triggers.some((t) => t.create)),
      Update: extensions.some((e) => e.triggers.some((t) => t.update)),
    };
  }

  /** The extensions that apply to a write of `kind` leaving the resource as `resource`, in creation order. */
  applying(kind: TriggerAction, resource: ResourceValue): ActiveExtension[] {
    if (!this.triggers[kind]) return [];
    const create = kind === 'Create';
    return this.extensions.filter((e) => e.triggers.some((t) => (create ? t.create : t.update) && (t.condition === undefined || t.condition(resource))));
  }

  /**
   * Whether no extension applies to a write of `kind`, judged on `partial`, the resource as far as the
   * write itself decides it (`known`: the fields it holds exactly as the write will leave them): true only
   * when every trigger of the kind has a condition that reads known fields alone and does not hold.
   * Otherwise (a trigger without condition, a condition that holds or reads another field) the whole
   * resource decides.
   */
  noneApplies(kind: TriggerAction, { partial, known }: { partial: ResourceValue; known: (field: string) => boolean }): boolean {
    if (!this.triggers[kind]) return true;
    const create = kind === 'Create';
    return this.extensions.every((e) =>
      e.triggers.every((t) => !(create ? t.create : t.update) || (t.condition !== undefined && t.condition.fields.every(known) && !t.condition(partial))));
  }
}

const NONE = new ProjectExtensions('0', []);
/** Projects whose extensions are kept at most (the oldest loaded go first). */
const MAX_PROJECTS = 10_000;
/** How far back each look for changes reaches: more than a few missed looks. */
const LOOKBACK_SECONDS = 10;

/**
 * Which extensions apply (docs/extensions.md#when-it-is-called), without a database read per write: each
 * server process keeps the extensions of the projects it writes, as of a revision of the project's
 * extensions. A change through this process drops the project's entry at once (`changed`); every
 * EXTENSIONS_REFRESH_MS the process asks which projects' revisions changed lately (one indexed query) and
 * drops those it holds at another revision, so a change through another process applies within about
 * twice that interval. While those looks fail or lag (the database unreachable), nothing kept is trusted:
 * each write reads its project's extensions again.
 */
@Injectable()
export class ExtensionRegistry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Extensions');
  private readonly projects = new Map<string, ProjectExtensions>();
  /** Bumped by every local change: a load that started before it is not kept. */
  private readonly generations = new Map<string, number>();
  private lastLook = 0;
  private timer?: NodeJS.Timeout;
  private looking = false;

  constructor(
    private readonly repository: ExtensionsRepository,
    @Inject(extensionsConfig.KEY) private readonly config: ExtensionsConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.look(), this.config.refreshMs);
    this.timer.unref();
    void this.look();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The project's extensions, from memory when the last look for changes is recent enough. */
  async of(projectKey: string): Promise<ProjectExtensions> {
    const kept = this.projects.get(projectKey);
    if (kept && performance.now() - this.lastLook < 3 * this.config.refreshMs) return kept;
    const generation = this.generations.get(projectKey) ?? 0;
    const { revision, extensions } = await this.repository.loadProject(projectKey);
    const loaded = extensions.length === 0 ? (revision === '0' ? NONE : new ProjectExtensions(revision, [])) : new ProjectExtensions(revision, extensions.map(activate));
    if ((this.generations.get(projectKey) ?? 0) === generation) {
      if (this.projects.size >= MAX_PROJECTS) this.projects.delete(this.projects.keys().next().value!);
      this.projects.set(projectKey, loaded);
    }
    return loaded;
  }

  /** The project's extensions changed through this process: the next write reads them again. */
  changed(projectKey: string): void {
    this.projects.delete(projectKey);
    this.generations.set(projectKey, (this.generations.get(projectKey) ?? 0) + 1);
    if (this.generations.size > MAX_PROJECTS) this.generations.clear();
  }

  private async look(): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    const started = performance.now();
    try {
      for (const { projectKey, revision } of await this.repository.changedSince(LOOKBACK_SECONDS)) {
        const kept = this.projects.get(projectKey);
        if (kept && kept.revision !== revision) this.projects.delete(projectKey);
      }
      this.lastLook = started;
    } catch (error) {
      this.logger.debug?.(`looking for changed extensions failed: ${(error as Error).message}`);
    } finally {
      this.looking = false;
    }
  }
}

function activate(e: StoredExtension): ActiveExtension {
  return {
    target: { id: e.id, key: e.key, url: e.destination.url, host: new URL(e.destination.url).hostname, authorization: e.destination.authentication?.headerValue, timeoutInMs: e.timeoutInMs },
    triggers: e.triggers.map((t) => ({
      create: t.actions.includes('Create'),
      update: t.actions.includes('Update'),
      condition: t.condition === undefined ? undefined : compileCondition(t.condition),
    })),
  };
}
