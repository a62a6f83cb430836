import { ApiClientEntity } from '../auth/api-client.entity.js';
import { SigningKeyEntity } from '../auth/signing-key.entity.js';
import { MessageEntity } from '../change-log/message.entity.js';
import { ResourceVersionEntity } from '../change-log/resource-version.entity.js';
import { ComplexPathRecordEntity } from '../complex-path/complex-path-record.entity.js';
import { ExtensionRevisionEntity } from '../extensions/extension-revision.entity.js';
import { ExtensionEntity } from '../extensions/extension.entity.js';
import { ImageBlobCheckEntity } from '../images/image-blob-check.entity.js';
import { ImageBlobEntity } from '../images/image-blob.entity.js';
import { ImageJobEntity } from '../images/image-job.entity.js';
import { ImageEntity } from '../images/image.entity.js';
import { ActionStoreEntryEntity } from '../namespace-actions/action-store-entry.entity.js';
import { ResourceEntity } from '../resource/resource.entity.js';
import { ResourceSearchEntity } from '../search/resource-search.entity.js';
import { SearchLanguageEntity } from '../search/search-language.entity.js';
import { SearchWordEntity } from '../search/search-word.entity.js';
import { SubscriptionDispatchEntity } from '../subscriptions/subscription-dispatch.entity.js';
import { SubscriptionNotificationEntity } from '../subscriptions/subscription-notification.entity.js';
import { SubscriptionProgressEntity } from '../subscriptions/subscription-progress.entity.js';
import { SubscriptionStatusEntity } from '../subscriptions/subscription-status.entity.js';
import { SubscriptionEntity } from '../subscriptions/subscription.entity.js';

/**
 * An entity for every table of the schema (a partition of `resource_search` is its parent's; `migrations` is
 * TypeORM's own), registered with the data source. They describe the schema the migrations write and are
 * checked against it (test/entity-schema.spec.ts); the statements themselves are SQL in the repositories
 * (docs/architecture.md, "Entities and SQL").
 */
export const ENTITIES = [
  ResourceEntity,
  ResourceVersionEntity,
  MessageEntity,
  ResourceSearchEntity,
  SearchLanguageEntity,
  SearchWordEntity,
  ImageEntity,
  ImageBlobEntity,
  ImageBlobCheckEntity,
  ImageJobEntity,
  ApiClientEntity,
  SigningKeyEntity,
  SubscriptionEntity,
  SubscriptionProgressEntity,
  SubscriptionNotificationEntity,
  SubscriptionStatusEntity,
  SubscriptionDispatchEntity,
  ActionStoreEntryEntity,
  ComplexPathRecordEntity,
  ExtensionEntity,
  ExtensionRevisionEntity,
];
