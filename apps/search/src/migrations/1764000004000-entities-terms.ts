import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesTerms1764000004000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0004_entities_terms';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- everything a search ANDs, in one tsvector with one GIN index, so that a query is one GIN
      -- scan whose keys skip through each other's posting lists (instead of a bitmap of every
      -- entry of each of three indexes ANDed afterwards):
      --   the words of search_text (lower case, as in tsv; no positions: no phrase is ever asked);
      --   'F:' || facet for every filter value (facets stays the source; upper case never comes
      --     out of the 'simple' configuration, so no word of a text can look like a token);
      --   the static rank band of the entity in its lens, 'B:<lens>:<rank_score >> 13>' (8,192 rank
      --     points wide), so that a first page reads only the matches of the lens's best bands
      --     within the same scan (EntitiesRepository.rank).
      -- Facet values longer than a tsvector lexeme may be (2 KB) are left out (the API's filter
      -- values are at most 100 characters, so no filter could ask for one).
      CREATE FUNCTION entity_terms(search_text text, lens text, facets text[], rank_score int) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN strip(to_tsvector('simple', search_text)) || array_to_tsvector(
          ARRAY['B:' || lens || ':' || (rank_score >> 13)]
          || ARRAY(SELECT 'F:' || f FROM unnest(facets) AS f WHERE f IS NOT NULL AND octet_length(f) < 2000));
      -- generated: every writer (seed, ingestion connectors, the API) fills it, and the rows already
      -- there are backfilled by this statement (it rewrites the table)
      ALTER TABLE entities ADD COLUMN terms tsvector GENERATED ALWAYS AS (entity_terms(search_text, lens, facets, rank_score)) STORED;
      SET LOCAL maintenance_work_mem = '256MB';
      CREATE INDEX entities_terms ON entities USING GIN (terms);
      -- replaced by entities_terms: no search reads them any more, and every insert paid for them
      DROP INDEX entities_tsv;
      DROP INDEX entities_facets;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX entities_tsv ON entities USING GIN (tsv);
      CREATE INDEX entities_facets ON entities USING GIN (facets);
      DROP INDEX entities_terms;
      ALTER TABLE entities DROP COLUMN terms;
      DROP FUNCTION entity_terms(text, text, text[], int);
    `);
  }
}
