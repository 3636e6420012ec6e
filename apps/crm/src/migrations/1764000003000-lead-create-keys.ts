import { MigrationInterface, QueryRunner } from 'typeorm';

export class LeadCreateKeys1764000003000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0003_lead_create_keys';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE lead_create_keys (
        workspace_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        lead_id text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX lead_create_keys_created ON lead_create_keys (created_at);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE lead_create_keys;
    `);
  }
}
