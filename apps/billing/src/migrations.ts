import { Migration } from '@app/platform/db';
import { EVENT_BUS_MIGRATION } from '@app/platform/events';

/** Applied in order at boot; an applied migration is never edited, only followed by a new one. */
export const MIGRATIONS: Migration[] = [
  EVENT_BUS_MIGRATION,
  {
    id: '0001_credits',
    up: `
      CREATE TABLE credit_accounts (
        workspace_id text COLLATE "C" PRIMARY KEY,
        plan text NOT NULL,
        plan_balance int NOT NULL DEFAULT 0 CHECK (plan_balance >= 0),
        pack_balance int NOT NULL DEFAULT 0 CHECK (pack_balance >= 0),
        period_ends_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ledger_entries (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        type text NOT NULL,
        amount int NOT NULL,
        reason text NOT NULL,
        ref text,
        pool text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- GET /credits reads a workspace's newest entries; ids sort by creation time.
      CREATE INDEX ledger_entries_workspace ON ledger_entries (workspace_id, id);
    `,
  },
  {
    id: '0002_credit_refs',
    up: `
      -- a consume or a refund with one ref is applied once (per pool it touched)
      CREATE UNIQUE INDEX ledger_entries_ref ON ledger_entries (workspace_id, type, ref, pool) WHERE ref IS NOT NULL AND type IN ('consume', 'refund');
      -- credits.low goes out once per period: the period end it was sent for
      ALTER TABLE credit_accounts ADD COLUMN low_notified_for timestamptz;
      CREATE INDEX credit_accounts_period ON credit_accounts (period_ends_at);
    `,
  },
  {
    id: '0003_ledger_ref_first',
    up: `
      -- A consume's earlier entries are looked up by ref. With the workspace first in this index, a
      -- plan made on stale statistics (a workspace the planner believes has one entry) descended by
      -- (workspace_id, type) alone and filtered every one of the workspace's consumes for the refs:
      -- a cost growing with the ledger. Ref first, the look-up can only descend by the refs. The
      -- same columns and predicate: the same uniqueness.
      CREATE UNIQUE INDEX ledger_entries_ref_first ON ledger_entries (ref, workspace_id, type, pool) WHERE ref IS NOT NULL AND type IN ('consume', 'refund');
      DROP INDEX ledger_entries_ref;
    `,
  },
];
