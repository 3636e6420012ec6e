import { MigrationInterface, QueryRunner } from 'typeorm';

export const LENSES = ['leads', 'investors', 'researchers', 'grants'];
/** RANK_BANDS in entities/entity.ts when this migration was written (an applied migration never changes). */
export const BANDS = [999_511, 999_023, 998_046, 996_093, 992_187, 984_375, 968_750, 937_500, 875_000, 750_000, 500_000];

export const bandPredicate = (lens: string, i: number): string => {
  if (i === 0) return `lens = '${lens}' AND rank_score >= ${BANDS[0]}`;
  if (i === BANDS.length) return `lens = '${lens}' AND rank_score < ${BANDS[i - 1]}`;
  return `lens = '${lens}' AND rank_score >= ${BANDS[i]} AND rank_score < ${BANDS[i - 1]}`;
};

export class EntitiesTermsBands1764000009000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // Rank-ordered access (issue 25): `terms` is indexed per lens and rank band, twelve bands a
    // lens each as wide as every band above it (RANK_BANDS), so a page is read from the top band
    // down and the read stops after the band that fills it (EntitiesRepository.rank), instead of
    // ranking every match of the lens: the cost of a page follows the page and the query's
    // selectivity, not the size of the index. Every row is in exactly one band index, so these
    // replace the whole-table index (entities_terms, 0004) and the top group's (0006).
    const statements = ["SET LOCAL maintenance_work_mem = '256MB'"];
    for (const lens of LENSES) {
      for (let i = 0; i <= BANDS.length; i++) statements.push(`CREATE INDEX entities_terms_${lens}_b${i} ON entities USING GIN (terms) WHERE ${bandPredicate(lens, i)}`);
    }
    statements.push('DROP INDEX entities_terms_top_leads', 'DROP INDEX entities_terms_top_investors', 'DROP INDEX entities_terms_top_researchers', 'DROP INDEX entities_terms_top_grants');
    statements.push('DROP INDEX entities_terms');
    for (const sql of statements) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    await queryRunner.query('CREATE INDEX entities_terms ON entities USING GIN (terms)');
    for (const lens of LENSES) {
      await queryRunner.query(`CREATE INDEX entities_terms_top_${lens} ON entities USING GIN (strip(terms)) WHERE lens = '${lens}' AND rank_score >= 975000`);
      for (let i = 0; i <= BANDS.length; i++) await queryRunner.query(`DROP INDEX entities_terms_${lens}_b${i}`);
    }
  }
}
