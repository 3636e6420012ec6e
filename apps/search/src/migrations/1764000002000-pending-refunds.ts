import { MigrationInterface, QueryRunner } from 'typeorm';

export class PendingRefunds1764000002000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0002_pending_refunds';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- refunds billing could not take when they were due; retried until billing answers (refunds are idempotent by ref)
      CREATE TABLE pending_refunds (
        ref text COLLATE "C" PRIMARY KEY,
        ctx jsonb NOT NULL,
        reason text NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE pending_refunds;
    `);
  }
}
