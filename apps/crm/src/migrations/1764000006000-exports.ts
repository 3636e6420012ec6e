import { MigrationInterface, QueryRunner } from 'typeorm';

export class Exports1764000006000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0006_exports';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE exports (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        livemode boolean NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
        format text NOT NULL CHECK (format IN ('csv', 'json')),
        filter jsonb NOT NULL DEFAULT '{}',
        row_count int,
        file_key text,
        error text,
        attempts int NOT NULL DEFAULT 0,
        locked_by text,
        locked_until timestamptz,
        request_id text,
        idempotency_key text,
        request_hash text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        started_at timestamptz,
        completed_at timestamptz,
        expires_at timestamptz
      );
      CREATE INDEX exports_workspace ON exports (workspace_id, id DESC);
      CREATE INDEX exports_pending ON exports (created_at, id) WHERE status IN ('queued', 'processing');
      CREATE INDEX exports_expiring ON exports (expires_at) WHERE file_key IS NOT NULL;
      CREATE UNIQUE INDEX exports_idempotency ON exports (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE TABLE export_attempts (
        export_id text COLLATE "C" NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
        attempt int NOT NULL,
        worker_id text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        outcome text,
        row_count int,
        error text,
        PRIMARY KEY (export_id, attempt)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE export_attempts;
      DROP TABLE exports;
    `);
  }
}
