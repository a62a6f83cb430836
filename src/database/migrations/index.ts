import { CreateResource1763700000000 } from './1763700000000-create-resource.js';
import { CreateAuth1763700000001 } from './1763700000001-create-auth.js';

/** Every migration, in order. Listed explicitly so the app, the CLI and tests load the same set. */
export const MIGRATIONS = [CreateResource1763700000000, CreateAuth1763700000001];
