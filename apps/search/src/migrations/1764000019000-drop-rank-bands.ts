import { MigrationInterface, QueryRunner } from 'typeorm';
// the band indexes as migrations 0009 and 0013 made them (0009's constants, frozen with it)
import { BANDS, bandPredicate, LENSES } from './1764000009000-entities-terms-bands';

const bandIndex = (lens: string, i: number): string => `entities_terms_${lens}_b${i}`;

/**
 * The rank bands deleted (issue 37, item 4; docs/decisions.md, "Search index chosen by
 * measurement"): every search process ranks from its in-memory index (MemorySearchIndex), which
 * reads `entities_rank` whole (a binary COPY) and no index of it, so the 48 band GIN indexes on
 * `entities_rank` only cost each seed and ingest their writes and pending lists. Also gone, where
 * a database still has them: the RUM indexes of the removed SEARCH_INDEX=rum (`entities_rum_<lens>`,
 * which no migration made: the index layout of that time built them beside the migrations, and
 * dropped the bands then, hence IF EXISTS for both). `entities_rank`, its triggers and
 * `entities_changes` stay: the in-memory index is built from the first and kept current by the second.
 */
export class DropRankBands1764000019000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    for (const lens of LENSES) {
      for (let i = 0; i <= BANDS.length; i++) await queryRunner.query(`DROP INDEX IF EXISTS ${bandIndex(lens, i)}`);
      await queryRunner.query(`DROP INDEX IF EXISTS entities_rum_${lens}`).catch((err: Error) => {
        throw new Error(`dropping entities_rum_${lens}, an index of the removed SEARCH_INDEX=rum, failed (${err.message}): ` +
          'run this migration on a server that still has the rum extension (docs/runbooks.md, "Moving off rum")');
      });
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    for (const lens of LENSES) {
      for (let i = 0; i <= BANDS.length; i++) await queryRunner.query(`CREATE INDEX ${bandIndex(lens, i)} ON entities_rank USING GIN (terms) WHERE ${bandPredicate(lens, i)}`);
    }
  }
}
