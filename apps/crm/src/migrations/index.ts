import { DeadEventsMigration, EventBusMigration, OutboxTraceContextMigration } from '@app/platform/migrations';
import { Leads1764000001000 } from './1764000001000-leads';
import { MillisecondTimestamps1764000002000 } from './1764000002000-millisecond-timestamps';
import { LeadCreateKeys1764000003000 } from './1764000003000-lead-create-keys';
import { CompaniesPipelines1764000004000 } from './1764000004000-companies-pipelines';
import { TasksNotes1764000005000 } from './1764000005000-tasks-notes';
import { Exports1764000006000 } from './1764000006000-exports';
import { LeadListIndexes1764000007000 } from './1764000007000-lead-list-indexes';
import { Lists1764000008000 } from './1764000008000-lists';
import { LeadsCompanyCountWhen1764000011000 } from './1764000011000-leads-company-count-when';

// The platform's tables (outbox, processed events, dead letters) at their place in this service's history.
export class EventBus1764000000000 extends EventBusMigration {}
export class DeadEvents1764000009000 extends DeadEventsMigration {}
export class OutboxTraceContext1764000010000 extends OutboxTraceContextMigration {}

/**
 * crm's schema history as TypeORM migrations, oldest first (TypeORM orders them by the
 * timestamp that ends each class name). An applied migration is never edited, only followed by
 * a new one; each has a down that undoes it (npm run migrate -- crm revert).
 */
export const CRM_MIGRATIONS = [
  EventBus1764000000000,
  Leads1764000001000,
  MillisecondTimestamps1764000002000,
  LeadCreateKeys1764000003000,
  CompaniesPipelines1764000004000,
  TasksNotes1764000005000,
  Exports1764000006000,
  LeadListIndexes1764000007000,
  Lists1764000008000,
  DeadEvents1764000009000,
  OutboxTraceContext1764000010000,
  LeadsCompanyCountWhen1764000011000,
];
