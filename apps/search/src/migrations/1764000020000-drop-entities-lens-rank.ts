import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `entities_lens_rank` (lens, rank_score DESC, id), of migration 0001: read by the rankings in
 * PostgreSQL (before the rank bands, then the bands' fallback for a lens of none of their indexes,
 * then RUM's last-rank ties), none of which is left since the in-memory index ranks every query
 * (issue 37, item 4). Every seeded or ingested row still paid for it: a third B-tree entry of
 * `entities` (a text, an integer and a text, compared as such), in the same transaction as the row.
 */
export class DropEntitiesLensRank1764000020000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS entities_lens_rank');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    await queryRunner.query('CREATE INDEX entities_lens_rank ON entities (lens, rank_score DESC, id)');
  }
}
