import { MigrationInterface, QueryRunner } from 'typeorm';

export class Credits1764000001000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0001_credits';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
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
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE ledger_entries;
      DROP TABLE credit_accounts;
    `);
  }
}
