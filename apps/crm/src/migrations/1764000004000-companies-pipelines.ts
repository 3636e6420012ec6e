import { MigrationInterface, QueryRunner } from 'typeorm';

export class CompaniesPipelines1764000004000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0004_companies_pipelines';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE companies
        ADD COLUMN industry text,
        ADD COLUMN size text,
        ADD COLUMN country text,
        ADD COLUMN city text,
        ADD COLUMN description text,
        ADD COLUMN lead_count int NOT NULL DEFAULT 0;
      UPDATE companies c SET lead_count = (SELECT count(*) FROM leads l WHERE l.company_id = c.id);
      CREATE INDEX companies_workspace_id ON companies (workspace_id, id DESC);
      CREATE INDEX companies_workspace_country ON companies (workspace_id, country, id DESC);

      CREATE FUNCTION leads_company_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.company_id IS NOT NULL
           AND (TG_OP = 'DELETE' OR NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
          UPDATE companies SET lead_count = lead_count - 1 WHERE id = OLD.company_id;
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.company_id IS NOT NULL
           AND (TG_OP = 'INSERT' OR NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
          UPDATE companies SET lead_count = lead_count + 1 WHERE id = NEW.company_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER leads_company_count AFTER INSERT OR DELETE OR UPDATE OF company_id ON leads
        FOR EACH ROW EXECUTE FUNCTION leads_company_count();

      CREATE TABLE pipelines (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        lens text,
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX pipelines_workspace ON pipelines (workspace_id, id DESC);
      CREATE UNIQUE INDEX pipelines_one_default ON pipelines (workspace_id) WHERE is_default;
      CREATE TABLE stages (
        id text COLLATE "C" PRIMARY KEY,
        pipeline_id text COLLATE "C" NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        position int NOT NULL,
        kind text NOT NULL CHECK (kind IN ('open', 'won', 'lost')),
        UNIQUE (pipeline_id, position)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE stages;
      DROP TABLE pipelines;
      DROP TRIGGER leads_company_count ON leads;
      DROP FUNCTION leads_company_count();
      DROP INDEX companies_workspace_country;
      DROP INDEX companies_workspace_id;
      ALTER TABLE companies
        DROP COLUMN lead_count,
        DROP COLUMN description,
        DROP COLUMN city,
        DROP COLUMN country,
        DROP COLUMN size,
        DROP COLUMN industry;
    `);
  }
}
