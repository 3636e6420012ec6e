import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesGenerationRow1764000011000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // The index generation moves from a sequence to the row every batch already updates
    // (entities_count, migration 0010), in the batch's transaction: a reader's snapshot sees a
    // batch's rows and its generation together. A sequence could not serve pages read on a
    // streaming replica (SEARCH_READ_DATABASE_URL): nextval writes WAL only every 32 values, so a
    // replica's copy of it stayed put across writes and kept stale ranked ids.
    await queryRunner.query(`ALTER TABLE entities_count ADD COLUMN generation bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(`UPDATE entities_count SET generation = (SELECT last_value FROM entities_generation) + 1`);
    await queryRunner.query(`DROP SEQUENCE entities_generation`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SEQUENCE entities_generation`);
    await queryRunner.query(`SELECT setval('entities_generation', (SELECT generation FROM entities_count) + 1)`);
    await queryRunner.query(`ALTER TABLE entities_count DROP COLUMN generation`);
  }
}
