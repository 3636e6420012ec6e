import { MigrationInterface, QueryRunner } from 'typeorm';
// the table and triggers as migration 0013 made them (frozen with it)
import { createEntitiesRank, dropEntitiesRank } from './1764000013000-entities-rank';

/**
 * `entities_rank` deleted with its four statement triggers (issue 37, item 3; docs/decisions.md,
 * "The in-memory index is built from `entities`"). Since the rank bands left (0019) nothing reads
 * an index of it: the in-memory index is built by one scan of it at a search process's start. Every
 * seeded or ingested row paid for it a second time: its transition-table copy, a heap row with
 * `terms` again and a primary-key entry. A build now reads `entities` itself (and each row's ctid
 * with it). Released code never read the table (0013 came after 0.1.0), so no running version
 * needs it.
 */
export class DropEntitiesRank1764000023000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await dropEntitiesRank(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    await createEntitiesRank(queryRunner);
    await queryRunner.query('ANALYZE entities_rank');
  }
}
