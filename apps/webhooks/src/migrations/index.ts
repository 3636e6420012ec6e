import { DeadEventsMigration, EventBusMigration, OutboxTraceContextMigration } from '@app/platform/migrations';
import { Webhooks1764000001000 } from './1764000001000-webhooks';
import { DeliveryTraceContext1764000004000 } from './1764000004000-delivery-trace-context';
import { SecretRoll1764000005000 } from './1764000005000-secret-roll';
import { DeliveriesByEndpoint1764000006000 } from './1764000006000-deliveries-by-endpoint';
import { Events1764000007000 } from './1764000007000-events';
import { ChangeKeys1764000008000 } from './1764000008000-change-keys';
import { EventsStream1764000009000 } from './1764000009000-events-stream';
import { SampleAttempts1764000010000 } from './1764000010000-sample-attempts';

// The platform's tables (outbox, processed events, dead letters) at their place in this service's history.
export class EventBus1764000000000 extends EventBusMigration {}
export class DeadEvents1764000002000 extends DeadEventsMigration {}
export class OutboxTraceContext1764000003000 extends OutboxTraceContextMigration {}

/**
 * webhooks's schema history as TypeORM migrations, oldest first (TypeORM orders them by the
 * timestamp that ends each class name). An applied migration is never edited, only followed by
 * a new one; each has a down that undoes it (npm run migrate -- webhooks revert).
 */
export const MIGRATIONS = [
  EventBus1764000000000,
  Webhooks1764000001000,
  DeadEvents1764000002000,
  OutboxTraceContext1764000003000,
  DeliveryTraceContext1764000004000,
  SecretRoll1764000005000,
  DeliveriesByEndpoint1764000006000,
  Events1764000007000,
  ChangeKeys1764000008000,
  EventsStream1764000009000,
  SampleAttempts1764000010000,
];
