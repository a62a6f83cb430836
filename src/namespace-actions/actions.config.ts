import { configSection } from '../config/env-reader.js';
import type { ActionDeclaration } from './action-declaration.js';
import { ActionsFileError, loadActionsFile, MAX_TIMEOUT_MS } from './actions-file.js';

/** Namespace actions (docs/rules.md#namespace-actions): the operator's declarations, validated at start-up. */
export interface ActionsConfig {
  /** ACTIONS_FILE (JSON or YAML); absent → the built-in defaults only. */
  file?: string;
  declarations: ActionDeclaration[];
  /** Default timeout of `forward` handlers. */
  forwardTimeoutMs: number;
}

export const actionsConfig = configSection('actions', (read): ActionsConfig => {
  const actions: ActionsConfig = {
    file: read.string('ACTIONS_FILE'),
    declarations: [],
    forwardTimeoutMs: read.int('ACTIONS_FORWARD_TIMEOUT_MS', 8_000, 1, MAX_TIMEOUT_MS),
  };
  if (actions.file) {
    try {
      actions.declarations = loadActionsFile(actions.file);
    } catch (error) {
      if (!(error instanceof ActionsFileError)) throw error;
      read.problems.push(...error.problems.map((problem) => `ACTIONS_FILE: ${problem}`));
    }
  }
  return actions;
});
