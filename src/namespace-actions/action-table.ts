import { type ActionDeclaration, type ActionHandler, endpointName } from './action-declaration.js';

/**
 * Which declaration answers an endpoint for a project: the project's own, else the file's declaration
 * for every project, else the built-in default.
 */
export class ActionTable {
  private readonly entries = new Map<string, { byProject: Map<string, ActionHandler>; forAll?: ActionHandler; fallback: ActionHandler }>();

  constructor(defaults: ActionDeclaration[], declarations: ActionDeclaration[]) {
    for (const declaration of defaults) {
      this.entries.set(endpointName(declaration), { byProject: new Map(), fallback: declaration.handler });
    }
    for (const declaration of declarations) {
      const entry = this.entries.get(endpointName(declaration));
      if (!entry) throw new Error(`No default declaration for ${endpointName(declaration)}`);
      if (!declaration.projects) entry.forAll = declaration.handler;
      for (const projectKey of declaration.projects ?? []) entry.byProject.set(projectKey, declaration.handler);
    }
  }

  handlerFor(endpoint: { method: string; path: string }, projectKey: string): ActionHandler {
    const entry = this.entries.get(endpointName(endpoint));
    if (!entry) throw new Error(`No declaration for ${endpointName(endpoint)}`);
    return entry.byProject.get(projectKey) ?? entry.forAll ?? entry.fallback;
  }
}
