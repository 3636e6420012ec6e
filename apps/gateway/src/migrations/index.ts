import { EventBusMigration, OutboxTraceContextMigration } from '@app/platform/migrations';
import { WorkspacesKeys1764000001000 } from './1764000001000-workspaces-keys';
import { AuditLog1764000002000 } from './1764000002000-audit-log';
import { IdempotencyMode1764000003000 } from './1764000003000-idempotency-mode';
import { IdempotencyOwner1764000005000 } from './1764000005000-idempotency-owner';
import { IdempotencyRecords1764000006000 } from './1764000006000-idempotency-records';

// The platform's tables (outbox, processed events, dead letters) at their place in this service's history.
export class EventBus1764000000000 extends EventBusMigration {}
export class OutboxTraceContext1764000004000 extends OutboxTraceContextMigration {}

/**
 * gateway's schema history as TypeORM migrations, oldest first (TypeORM orders them by the
 * timestamp that ends each class name). An applied migration is never edited, only followed by
 * a new one; each has a down that undoes it (npm run migrate -- gateway revert).
 */
export const GATEWAY_MIGRATIONS = [
  EventBus1764000000000,
  WorkspacesKeys1764000001000,
  AuditLog1764000002000,
  IdempotencyMode1764000003000,
  OutboxTraceContext1764000004000,
  IdempotencyOwner1764000005000,
  IdempotencyRecords1764000006000,
];
