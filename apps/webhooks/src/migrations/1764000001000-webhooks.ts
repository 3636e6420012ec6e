import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1764000001000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0001_webhooks';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        livemode boolean NOT NULL,
        url text NOT NULL,
        description text,
        events text[] NOT NULL,
        api_version text NOT NULL,
        -- AES-256-GCM under WEBHOOK_SECRET_KEY: "v1:<iv>:<tag>:<ciphertext>", base64url parts
        secret_enc text NOT NULL,
        status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
        consecutive_failures int NOT NULL DEFAULT 0,
        disabled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX webhook_endpoints_list ON webhook_endpoints (workspace_id, id DESC);

      -- one row per (event, endpoint); the body is rendered once so every attempt sends the same bytes
      CREATE TABLE webhook_deliveries (
        id text COLLATE "C" PRIMARY KEY,
        endpoint_id text COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        event_id text COLLATE "C" NOT NULL,
        event_type text NOT NULL,
        event_created timestamptz NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'dropped')),
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        claim_token text,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        UNIQUE (event_id, endpoint_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);

      CREATE TABLE webhook_attempts (
        delivery_id text COLLATE "C" NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        endpoint_id text COLLATE "C" NOT NULL,
        attempt int NOT NULL,
        attempted_at timestamptz NOT NULL DEFAULT now(),
        status_code int,
        outcome text NOT NULL,
        error text,
        latency_ms int NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );
      CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, attempted_at DESC);

      -- a create retried after a gateway time-out returns the endpoint it created (24 hours)
      CREATE TABLE webhook_create_keys (
        workspace_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        endpoint_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );

      -- the retry clock's offset; only read and written with WEBHOOK_TEST_CLOCK=1
      CREATE TABLE webhook_test_clock (
        id int PRIMARY KEY CHECK (id = 1),
        offset_ms bigint NOT NULL
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE webhook_test_clock;
      DROP TABLE webhook_create_keys;
      DROP TABLE webhook_attempts;
      DROP TABLE webhook_deliveries;
      DROP TABLE webhook_endpoints;
    `);
  }
}
