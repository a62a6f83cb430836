import { ResourceEntity } from '../resource/resource.entity.js';

export const ENTITIES = [ResourceEntity];
