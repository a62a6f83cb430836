import { CreateResource1763700000000 } from './1763700000000-create-resource.js';
import { CreateAuth1763700000001 } from './1763700000001-create-auth.js';
import { QueryIndexes1763700000002 } from './1763700000002-query-indexes.js';
import { Images1763700000003 } from './1763700000003-images.js';
import { NamespaceActions1763700000004 } from './1763700000004-namespace-actions.js';
import { Search1763700000005 } from './1763700000005-search.js';
import { SearchTable1763700000006 } from './1763700000006-search-table.js';
import { SearchValues1763700000007 } from './1763700000007-search-values.js';
import { SearchLanguages1763700000008 } from './1763700000008-search-languages.js';
import { SearchWordTrigrams1763700000009 } from './1763700000009-search-word-trigrams.js';
import { ChangeLog1763700000010 } from './1763700000010-change-log.js';
import { ImageReclaim1763700000011 } from './1763700000011-image-reclaim.js';
import { Subscriptions1763700000012 } from './1763700000012-subscriptions.js';
import { SubscriptionProgressPruning1763700000013 } from './1763700000013-subscription-progress-pruning.js';
import { SubscriptionSweepCursor1763700000014 } from './1763700000014-subscription-sweep-cursor.js';
import { OneDocumentIndex1763700000015 } from './1763700000015-one-document-index.js';
import { SearchValuesRow1763700000016 } from './1763700000016-search-values-row.js';
import { LiveChangesNotify1763700000017 } from './1763700000017-live-changes-notify.js';
import { Extensions1763700000030 } from './1763700000030-extensions.js';

/** Every migration, in order. Listed explicitly so the app, the CLI and tests load the same set. */
export const MIGRATIONS = [
  CreateResource1763700000000,
  CreateAuth1763700000001,
  QueryIndexes1763700000002,
  Images1763700000003,
  NamespaceActions1763700000004,
  Search1763700000005,
  SearchTable1763700000006,
  SearchValues1763700000007,
  SearchLanguages1763700000008,
  SearchWordTrigrams1763700000009,
  ChangeLog1763700000010,
  ImageReclaim1763700000011,
  Subscriptions1763700000012,
  SubscriptionProgressPruning1763700000013,
  SubscriptionSweepCursor1763700000014,
  OneDocumentIndex1763700000015,
  SearchValuesRow1763700000016,
  LiveChangesNotify1763700000017,
  Extensions1763700000030,
];
