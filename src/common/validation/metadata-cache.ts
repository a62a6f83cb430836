import type { MetadataStorage } from 'class-validator';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** The two lookups of class-validator's `MetadataStorage` that every validated object pays for, and the addition. */
interface MetadataLookups {
  addValidationMetadata(metadata: ValidationMetadata): void;
  getTargetValidationMetadatas(
    target: Function,
    targetSchema: string,
    always: boolean,
    strictGroups: boolean,
    groups?: string[],
  ): ValidationMetadata[];
  groupByPropertyName(metadata: ValidationMetadata[]): Record<string, ValidationMetadata[]>;
}

const MEMOIZED = Symbol('memoizedValidationMetadata');

/**
 * Memoizes class-validator's metadata lookups on its storage (once; later calls do nothing).
 *
 * For every object it validates (the body and each nested DTO), class-validator asks the storage for
 * the class's rules, and the storage tests the class against *every* registered class to find inherited
 * rules, then groups the result by property (typestack/class-validator#2686, open). That was 2.8 % of the
 * server's busy time under `npm run bench`'s creates. The answer only changes when rules are added,
 * which happens as classes load: any addition empties the cache.
 *
 * Answers are shared between callers, so they are frozen: class-validator only reads them.
 */
export function memoizeValidationMetadata(storage: MetadataStorage): void {
  const lookups = storage as unknown as MetadataLookups & { [MEMOIZED]?: true };
  if (lookups[MEMOIZED]) return;
  lookups[MEMOIZED] = true;

  const add = lookups.addValidationMetadata.bind(lookups);
  const find = lookups.getTargetValidationMetadatas.bind(lookups);
  const group = lookups.groupByPropertyName.bind(lookups);
  let found = new WeakMap<Function, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();

  lookups.addValidationMetadata = (metadata) => {
    found = new WeakMap();
    grouped = new WeakMap();
    add(metadata);
  };
  lookups.getTargetValidationMetadatas = (target, targetSchema, always, strictGroups, groups) => {
    if (typeof target !== 'function') return find(target, targetSchema, always, strictGroups, groups);
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups === undefined ? '' : JSON.stringify(groups)}`;
    let byOptions = found.get(target);
    if (!byOptions) found.set(target, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (!metadatas) byOptions.set(key, (metadatas = Object.freeze(find(target, targetSchema, always, strictGroups, groups)) as ValidationMetadata[]));
    return metadatas;
  };
  lookups.groupByPropertyName = (metadatas) => {
    if (!Object.isFrozen(metadatas)) return group(metadatas);
    let byProperty = grouped.get(metadatas);
    if (!byProperty) {
      byProperty = group(metadatas);
      for (const list of Object.values(byProperty)) Object.freeze(list);
      grouped.set(metadatas, Object.freeze(byProperty));
    }
    return byProperty;
  };
}
