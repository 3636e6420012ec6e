import { DeadEventsMigration, EventBusMigration, OutboxTraceContextMigration } from '@app/platform/migrations';
import { Sequences1764000001000 } from './1764000001000-sequences';
import { ImapPoll1764000002000 } from './1764000002000-imap-poll';
import { EnrollmentRemoval1764000003000 } from './1764000003000-enrollment-removal';
import { EmailTraceContext1764000006000 } from './1764000006000-email-trace-context';
import { EnrollmentsIdempotencyKey1764000007000 } from './1764000007000-enrollments-idempotency-key';

// The platform's tables (outbox, processed events, dead letters) at their place in this service's history.
export class EventBus1764000000000 extends EventBusMigration {}
export class DeadEvents1764000004000 extends DeadEventsMigration {}
export class OutboxTraceContext1764000005000 extends OutboxTraceContextMigration {}

/**
 * sequences's schema history as TypeORM migrations, oldest first (TypeORM orders them by the
 * timestamp that ends each class name). An applied migration is never edited, only followed by
 * a new one; each has a down that undoes it (npm run migrate -- sequences revert).
 */
export const MIGRATIONS = [
  EventBus1764000000000,
  Sequences1764000001000,
  ImapPoll1764000002000,
  EnrollmentRemoval1764000003000,
  DeadEvents1764000004000,
  OutboxTraceContext1764000005000,
  EmailTraceContext1764000006000,
  EnrollmentsIdempotencyKey1764000007000,
];
