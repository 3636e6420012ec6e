import { EventBusMigration, OutboxTraceContextMigration } from '@app/platform/migrations';
import { Entities1764000001000 } from './1764000001000-entities';
import { PendingRefunds1764000002000 } from './1764000002000-pending-refunds';
import { EntitiesGeneration1764000003000 } from './1764000003000-entities-generation';
import { EntitiesTerms1764000004000 } from './1764000004000-entities-terms';
import { EntitiesTermsWritten1764000005000 } from './1764000005000-entities-terms-written';
import { EntitiesTermsTop1764000006000 } from './1764000006000-entities-terms-top';
import { EntitiesOrganizations1764000007000 } from './1764000007000-entities-organizations';
import { EntitiesTermsBands1764000009000 } from './1764000009000-entities-terms-bands';
import { EntitiesCount1764000010000 } from './1764000010000-entities-count';
import { EntitiesGenerationRow1764000011000 } from './1764000011000-entities-generation-row';
import { RevealsIdempotencyKey1764000012000 } from './1764000012000-reveals-idempotency-key';
import { EntitiesRank1764000013000 } from './1764000013000-entities-rank';
import { RevealsOwner1764000014000 } from './1764000014000-reveals-owner';
import { CreditLeases1764000016000 } from './1764000016000-credit-leases';
import { EntitiesChanges1764000017000 } from './1764000017000-entities-changes';
import { LeaseTakeCustomPlans1764000018000 } from './1764000018000-lease-take-custom-plans';
import { DropRankBands1764000019000 } from './1764000019000-drop-rank-bands';
import { DropEntitiesLensRank1764000020000 } from './1764000020000-drop-entities-lens-rank';
import { LeaseTakeGenericPlans1764000021000 } from './1764000021000-lease-take-generic-plans';
import { LeaseTakeLookupByKey1764000022000 } from './1764000022000-lease-take-lookup-by-key';
import { DropEntitiesRank1764000023000 } from './1764000023000-drop-entities-rank';
import { EntitiesJson1764000024000 } from './1764000024000-entities-json';
import { LeaseTakeRoom1764000025000 } from './1764000025000-lease-take-room';
import { CreditLeasesSettled1764000026000 } from './1764000026000-credit-leases-settled';

// The platform's tables (outbox, processed events, dead letters) at their place in this service's history.
export class EventBus1764000000000 extends EventBusMigration {}
export class OutboxTraceContext1764000008000 extends OutboxTraceContextMigration {}

/**
 * search's schema history as TypeORM migrations, oldest first (TypeORM orders them by the
 * timestamp that ends each class name). An applied migration is never edited, only followed by
 * a new one; each has a down that undoes it (npm run migrate -- search revert).
 */
export const MIGRATIONS = [
  EventBus1764000000000,
  Entities1764000001000,
  PendingRefunds1764000002000,
  EntitiesGeneration1764000003000,
  EntitiesTerms1764000004000,
  EntitiesTermsWritten1764000005000,
  EntitiesTermsTop1764000006000,
  EntitiesOrganizations1764000007000,
  OutboxTraceContext1764000008000,
  EntitiesTermsBands1764000009000,
  EntitiesCount1764000010000,
  EntitiesGenerationRow1764000011000,
  RevealsIdempotencyKey1764000012000,
  EntitiesRank1764000013000,
  RevealsOwner1764000014000,
  CreditLeases1764000016000,
  EntitiesChanges1764000017000,
  LeaseTakeCustomPlans1764000018000,
  DropRankBands1764000019000,
  DropEntitiesLensRank1764000020000,
  LeaseTakeGenericPlans1764000021000,
  LeaseTakeLookupByKey1764000022000,
  DropEntitiesRank1764000023000,
  EntitiesJson1764000024000,
  LeaseTakeRoom1764000025000,
  CreditLeasesSettled1764000026000,
];

/**
 * SEARCH_INDEX's check (a removed layout is refused before anything is migrated): reached through
 * this module, so `tools/migrate.js` loads it only when it migrates search, and the other
 * services' images (which hold migrate.js, not search's code: tools/image/deps.ts) do not carry it.
 */
export { searchIndexOf } from './index-layout';
