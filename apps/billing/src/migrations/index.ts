import { DeadEventsMigration, EventBusMigration, OutboxTraceContextMigration } from '@app/platform/migrations';
import { Credits1764000001000 } from './1764000001000-credits';
import { CreditRefs1764000002000 } from './1764000002000-credit-refs';
import { LedgerRefFirst1764000003000 } from './1764000003000-ledger-ref-first';
import { ConsumeFunction1764000004000 } from './1764000004000-consume-function';
import { RefundedRefs1764000007000 } from './1764000007000-refunded-refs';
import { CreditLeases1764000008000 } from './1764000008000-credit-leases';

// The platform's tables (outbox, processed events, dead letters) at their place in this service's history.
export class EventBus1764000000000 extends EventBusMigration {}
export class DeadEvents1764000005000 extends DeadEventsMigration {}
export class OutboxTraceContext1764000006000 extends OutboxTraceContextMigration {}

/**
 * billing's schema history as TypeORM migrations, oldest first (TypeORM orders them by the
 * timestamp that ends each class name). An applied migration is never edited, only followed by
 * a new one; each has a down that undoes it (npm run migrate -- billing revert).
 */
export const MIGRATIONS = [
  EventBus1764000000000,
  Credits1764000001000,
  CreditRefs1764000002000,
  LedgerRefFirst1764000003000,
  ConsumeFunction1764000004000,
  DeadEvents1764000005000,
  OutboxTraceContext1764000006000,
  RefundedRefs1764000007000,
  CreditLeases1764000008000,
];
