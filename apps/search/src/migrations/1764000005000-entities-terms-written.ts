import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesTermsWritten1764000005000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0005_entities_terms_written';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- tsv (the words of search_text, with positions) was only read through entities_tsv, which
      -- 0004 replaced: terms holds the same words. No rewrite: the rows already there keep the
      -- dropped column's bytes until they are next written (or VACUUM FULL).
      ALTER TABLE entities DROP COLUMN tsv;
      -- terms keeps its values but is written by EntitiesRepository.upsertMany (the one writer of
      -- entities) from now on, as the same expression inline in its INSERT: to_tsvector ran twice
      -- per insert (tsv and terms) and entity_terms went through the SQL-function executor, which
      -- cost a seed of 1M entities 10-20% more PostgreSQL CPU than before 0004. NOT NULL: a
      -- writer that left it out would fail rather than hide its rows from every search.
      ALTER TABLE entities ALTER COLUMN terms DROP EXPRESSION;
      ALTER TABLE entities ALTER COLUMN terms SET NOT NULL;
      DROP FUNCTION entity_terms(text, text, text[], int);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- terms becomes generated again (the table is rewritten) and tsv comes back
      CREATE FUNCTION entity_terms(search_text text, lens text, facets text[], rank_score int) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN strip(to_tsvector('simple', search_text)) || array_to_tsvector(
          ARRAY['B:' || lens || ':' || (rank_score >> 13)]
          || ARRAY(SELECT 'F:' || f FROM unnest(facets) AS f WHERE f IS NOT NULL AND octet_length(f) < 2000));
      DROP INDEX entities_terms;
      ALTER TABLE entities DROP COLUMN terms;
      ALTER TABLE entities ADD COLUMN terms tsvector GENERATED ALWAYS AS (entity_terms(search_text, lens, facets, rank_score)) STORED;
      CREATE INDEX entities_terms ON entities USING GIN (terms);
      ALTER TABLE entities ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED;
    `);
  }
}
