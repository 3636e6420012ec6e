import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreditRefs1764000002000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0002_credit_refs';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- a consume or a refund with one ref is applied once (per pool it touched)
      CREATE UNIQUE INDEX ledger_entries_ref ON ledger_entries (workspace_id, type, ref, pool) WHERE ref IS NOT NULL AND type IN ('consume', 'refund');
      -- credits.low goes out once per period: the period end it was sent for
      ALTER TABLE credit_accounts ADD COLUMN low_notified_for timestamptz;
      CREATE INDEX credit_accounts_period ON credit_accounts (period_ends_at);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX credit_accounts_period;
      ALTER TABLE credit_accounts DROP COLUMN low_notified_for;
      DROP INDEX ledger_entries_ref;
    `);
  }
}
