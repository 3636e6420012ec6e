import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyMode1764000003000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0003_idempotency_mode';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE idempotency_keys ADD COLUMN mode text;
      ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
      INSERT INTO idempotency_keys (workspace_id, mode, key, request_hash, status, response_status, response_body, created_at)
        SELECT workspace_id, 'test', key, request_hash, status, response_status, response_body, created_at FROM idempotency_keys;
      UPDATE idempotency_keys SET mode = 'live' WHERE mode IS NULL;
      ALTER TABLE idempotency_keys ALTER COLUMN mode SET NOT NULL, ADD PRIMARY KEY (workspace_id, mode, key);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- the test-mode copies made by up are dropped; live ones keep their key
      DELETE FROM idempotency_keys WHERE mode = 'test';
      ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
      ALTER TABLE idempotency_keys DROP COLUMN mode;
      ALTER TABLE idempotency_keys ADD PRIMARY KEY (workspace_id, key);
    `);
  }
}
