import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /events (issue 24): each public event consumed, once, with its workspace and mode, kept
 * EVENTS_RETENTION_DAYS; and which sample delivery each Idempotency-Key of
 * POST /webhook_endpoints/{id}/test made (24 hours).
 */
export class Events1764000007000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- the envelope as consumed (json keeps its text: rendering reads it back in the same order)
      CREATE TABLE webhook_events (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        livemode boolean NOT NULL,
        type text NOT NULL,
        created timestamptz NOT NULL,
        envelope json NOT NULL
      );
      CREATE INDEX webhook_events_list ON webhook_events (workspace_id, livemode, id DESC);
      CREATE INDEX webhook_events_created ON webhook_events (created);

      CREATE TABLE webhook_test_keys (
        workspace_id text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        delivery_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE webhook_test_keys;
      DROP TABLE webhook_events;
    `);
  }
}
