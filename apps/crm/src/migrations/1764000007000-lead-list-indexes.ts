import { MigrationInterface, QueryRunner } from 'typeorm';

export class LeadListIndexes1764000007000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0007_lead_list_indexes';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE INDEX leads_workspace_lens ON leads (workspace_id, lens, id DESC);
      CREATE INDEX leads_full_name_trgm ON leads USING gin (full_name gin_trgm_ops);
      CREATE INDEX leads_email_trgm ON leads USING gin (email gin_trgm_ops);
      CREATE INDEX leads_company_name_trgm ON leads USING gin (company_name gin_trgm_ops);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX leads_company_name_trgm;
      DROP INDEX leads_email_trgm;
      DROP INDEX leads_full_name_trgm;
      DROP INDEX leads_workspace_lens;
      DROP EXTENSION IF EXISTS pg_trgm;
    `);
  }
}
