import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesTermsTop1764000006000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0006_entities_terms_top';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- the top group of each lens (TOP_GROUP_MIN_RANK in entities/entity.ts: keep the two numbers
      -- equal, a different one there makes the planner ignore these indexes): a first page is read
      -- from the lens's matches ranked at least this. Each index's posting lists hold ~2.5% of one
      -- lens, so a query's words and facets are intersected over those only, where the band tokens
      -- of 0004 ('B:<lens>:<band>', no longer written) still had the whole index's lists decoded.
      -- On strip(terms) (terms has no positions: the same value) so that only these indexes can
      -- answer the top group's read: on terms itself the planner took entities_terms ANDed with
      -- entities_lens_rank for a frequent word (10-34 ms at 1M entities instead of 0.2 ms).
      SET LOCAL maintenance_work_mem = '256MB';
      CREATE INDEX entities_terms_top_leads ON entities USING GIN (strip(terms)) WHERE lens = 'leads' AND rank_score >= 975000;
      CREATE INDEX entities_terms_top_investors ON entities USING GIN (strip(terms)) WHERE lens = 'investors' AND rank_score >= 975000;
      CREATE INDEX entities_terms_top_researchers ON entities USING GIN (strip(terms)) WHERE lens = 'researchers' AND rank_score >= 975000;
      CREATE INDEX entities_terms_top_grants ON entities USING GIN (strip(terms)) WHERE lens = 'grants' AND rank_score >= 975000;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX entities_terms_top_grants;
      DROP INDEX entities_terms_top_researchers;
      DROP INDEX entities_terms_top_investors;
      DROP INDEX entities_terms_top_leads;
    `);
  }
}
