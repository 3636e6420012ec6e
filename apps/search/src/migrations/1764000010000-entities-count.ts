import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesCount1764000010000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // The number of entities, kept by the one writer of entities (EntitiesRepository.upsertMany adds
    // what each batch inserted in the batch's own transaction; nothing deletes entities), so the
    // index's size is one row read instead of count(*) over the whole table: at 10M entities that
    // count outlived the admin CLI's 10 s deadline (issue 25). Counted once here.
    await queryRunner.query(`CREATE TABLE entities_count (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), n bigint NOT NULL)`);
    await queryRunner.query(`INSERT INTO entities_count (n) SELECT count(*) FROM entities`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE entities_count');
  }
}
