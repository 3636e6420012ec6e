import { MigrationInterface, QueryRunner } from 'typeorm';

export class Lists1764000008000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0008_lists';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE lists (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE UNIQUE INDEX lists_workspace_name ON lists (workspace_id, name);
      CREATE TABLE list_members (
        list_id text COLLATE "C" NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
        lead_id text COLLATE "C" NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (list_id, lead_id)
      );
      CREATE INDEX list_members_lead ON list_members (lead_id);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE list_members;
      DROP TABLE lists;
    `);
  }
}
