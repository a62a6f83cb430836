import { ApiClientEntity } from '../auth/api-client.entity.js';
import { SigningKeyEntity } from '../auth/signing-key.entity.js';
import { ResourceEntity } from '../resource/resource.entity.js';

export const ENTITIES = [ResourceEntity, ApiClientEntity, SigningKeyEntity];
