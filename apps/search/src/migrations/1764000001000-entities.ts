import { MigrationInterface, QueryRunner } from 'typeorm';

export class Entities1764000001000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0001_entities';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE entities (
        id text COLLATE "C" PRIMARY KEY,
        -- provider:record id (or seed:n): the same source record always lands on the same entity
        ext_key text COLLATE "C" NOT NULL UNIQUE,
        lens text NOT NULL,
        name text NOT NULL,
        person_name text,
        first_name text,
        last_name text,
        title text,
        organization text,
        location text,
        country text,
        domain text,
        email text,
        phone text,
        details jsonb NOT NULL DEFAULT '{}',
        -- filter values as 'key:value' (lower case), matched with the GIN index
        facets text[] NOT NULL DEFAULT '{}',
        -- numeric filters: investors check size, researchers works count, grants deadline (epoch days)
        num_min bigint,
        num_max bigint,
        -- static quality; hits are ordered by it so a page never ranks every match
        rank_score int NOT NULL DEFAULT 0,
        sources jsonb NOT NULL DEFAULT '[]',
        search_text text NOT NULL DEFAULT '',
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX entities_tsv ON entities USING GIN (tsv);
      CREATE INDEX entities_facets ON entities USING GIN (facets);
      CREATE INDEX entities_lens_rank ON entities (lens, rank_score DESC, id);
      CREATE TABLE reveals (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        entity_id text COLLATE "C" NOT NULL,
        status text NOT NULL,
        lead_id text,
        email text,
        email_status text,
        email_confidence int,
        phone text,
        credits_charged int NOT NULL,
        sources jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, entity_id)
      );
      CREATE TABLE opportunity_profiles (
        workspace_id text COLLATE "C" PRIMARY KEY,
        profile jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE opportunity_profiles;
      DROP TABLE reveals;
      DROP TABLE entities;
    `);
  }
}
