import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records scoped by the API key that made them (docs/decisions.md, "Idempotency"):
 * another key of the workspace never meets them, and `grants` (what the key could do when it
 * asked) keeps a stored answer from a key whose role or plan has changed since. A table of its
 * own rather than a new primary key on `idempotency_keys`, which gateways of the previous release
 * keep writing during a rollout.
 */
export class IdempotencyRecords1764000006000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_records (
        key_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        workspace_id text COLLATE "C" NOT NULL,
        grants text NOT NULL,
        request_hash text NOT NULL,
        status text NOT NULL,
        response_status int,
        response_body text,
        owner text,
        claim text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (key_id, key)
      );
      CREATE INDEX idempotency_records_created ON idempotency_records (created_at);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE idempotency_records;
    `);
  }
}
