import { MigrationInterface, QueryRunner } from 'typeorm';

export class Leads1764000001000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0001_leads';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE companies (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        domain text,
        sources json NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX companies_workspace_domain ON companies (workspace_id, domain) WHERE domain IS NOT NULL;
      CREATE INDEX companies_workspace_name ON companies (workspace_id, lower(name));

      CREATE TABLE tags (
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, name)
      );

      CREATE TABLE leads (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        lens text NOT NULL,
        first_name text,
        last_name text,
        full_name text NOT NULL,
        full_name_derived boolean NOT NULL DEFAULT false,
        title text,
        email text,
        email_status text,
        email_confidence int,
        phone text,
        website text,
        company_id text COLLATE "C" REFERENCES companies (id) ON DELETE SET NULL,
        company_name text,
        country text,
        revealed boolean NOT NULL DEFAULT false,
        lawful_basis text NOT NULL,
        owner_id text,
        tags text[] NOT NULL DEFAULT '{}',
        pipeline_id text COLLATE "C",
        stage_id text COLLATE "C",
        stage_name text,
        custom_fields jsonb NOT NULL DEFAULT '{}',
        sources json NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX leads_workspace_email ON leads (workspace_id, lower(email)) WHERE email IS NOT NULL;
      CREATE INDEX leads_workspace_id ON leads (workspace_id, id DESC);
      CREATE INDEX leads_workspace_stage ON leads (workspace_id, stage_id, id DESC) WHERE stage_id IS NOT NULL;
      CREATE INDEX leads_workspace_updated ON leads (workspace_id, updated_at);
      CREATE INDEX leads_tags ON leads USING gin (tags);
      CREATE INDEX leads_company ON leads (company_id) WHERE company_id IS NOT NULL;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE leads;
      DROP TABLE tags;
      DROP TABLE companies;
    `);
  }
}
