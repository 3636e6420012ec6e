import { Migration } from '@app/platform/db';
import { EVENT_BUS_MIGRATION, OUTBOX_TRACE_MIGRATION } from '@app/platform/events';

export const GATEWAY_MIGRATIONS: Migration[] = [
  EVENT_BUS_MIGRATION,
  {
    id: '0001_workspaces_keys',
    up: `
      CREATE TABLE workspaces (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL,
        lenses text[] NOT NULL,
        owner_id text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE members (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
        role text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX members_workspace ON members (workspace_id);
      CREATE TABLE api_keys (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
        member_id text COLLATE "C" NOT NULL REFERENCES members (id),
        name text,
        mode text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        last4 text NOT NULL,
        api_version text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE TABLE idempotency_keys (
        workspace_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        status text NOT NULL,
        response_status int,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      CREATE UNLOGGED TABLE rate_limit_counters (
        bucket text NOT NULL,
        window_start bigint NOT NULL,
        count int NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
    `,
  },
  {
    // Who did what, kept by the gateway (architecture): every accepted export, every download.
    id: '0002_audit_log',
    up: `
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        key_id text COLLATE "C",
        member_id text COLLATE "C",
        action text NOT NULL,
        object_id text COLLATE "C" NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        request_id text NOT NULL,
        client_ip text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX audit_log_workspace ON audit_log (workspace_id, created_at DESC);
      CREATE UNIQUE INDEX audit_log_export_created ON audit_log (action, object_id) WHERE action = 'export.created';
    `,
  },
  {
    // Idempotency records are scoped by the key's mode as well (a test key never replays a live
    // response). A record made before answered both modes; it becomes one record per mode, so a
    // retry in flight across the upgrade is still answered until the record expires.
    id: '0003_idempotency_mode',
    up: `
      ALTER TABLE idempotency_keys ADD COLUMN mode text;
      ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
      INSERT INTO idempotency_keys (workspace_id, mode, key, request_hash, status, response_status, response_body, created_at)
        SELECT workspace_id, 'test', key, request_hash, status, response_status, response_body, created_at FROM idempotency_keys;
      UPDATE idempotency_keys SET mode = 'live' WHERE mode IS NULL;
      ALTER TABLE idempotency_keys ALTER COLUMN mode SET NOT NULL, ADD PRIMARY KEY (workspace_id, mode, key);
    `,
  },
  OUTBOX_TRACE_MIGRATION,
];
