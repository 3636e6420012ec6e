import { MigrationInterface, QueryRunner } from 'typeorm';

export class LedgerRefFirst1764000003000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0003_ledger_ref_first';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- A consume's earlier entries are looked up by ref. With the workspace first in this index, a
      -- plan made on stale statistics (a workspace the planner believes has one entry) descended by
      -- (workspace_id, type) alone and filtered every one of the workspace's consumes for the refs:
      -- a cost growing with the ledger. Ref first, the look-up can only descend by the refs. The
      -- same columns and predicate: the same uniqueness.
      CREATE UNIQUE INDEX ledger_entries_ref_first ON ledger_entries (ref, workspace_id, type, pool) WHERE ref IS NOT NULL AND type IN ('consume', 'refund');
      DROP INDEX ledger_entries_ref;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE UNIQUE INDEX ledger_entries_ref ON ledger_entries (workspace_id, type, ref, pool) WHERE ref IS NOT NULL AND type IN ('consume', 'refund');
      DROP INDEX ledger_entries_ref_first;
    `);
  }
}
