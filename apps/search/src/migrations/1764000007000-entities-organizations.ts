import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesOrganizations1764000007000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0007_entities_organizations';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- the organisation records (ORGANIZATION_RECORD_SQL in entities.repository.ts: keep the
      -- predicates equal) by domain and by name, for the company a reveal or a new lead links to
      CREATE INDEX entities_org_domain ON entities (domain) WHERE (ext_key LIKE 'opencorporates:%' OR ext_key ~ '^sec_edgar:[^:]+$');
      CREATE INDEX entities_org_name ON entities (lower(organization)) WHERE (ext_key LIKE 'opencorporates:%' OR ext_key ~ '^sec_edgar:[^:]+$');
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX entities_org_name;
      DROP INDEX entities_org_domain;
    `);
  }
}
