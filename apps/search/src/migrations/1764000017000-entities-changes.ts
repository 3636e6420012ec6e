import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each batch wrote, by index generation (SEARCH_INDEX=memory): the batch's ext_keys, written
 * by EntitiesRepository.upsertMany in the batch's transaction, under the row lock of
 * entities_count that gives the batch its generation, so generations are in commit order and a
 * search process whose in-memory index is at generation g reads every entity written since with
 * `generation > g` (MemorySearchIndex.catchUp). Kept an hour (the catch-up prunes it); a process
 * further behind, or one that finds a generation missing, builds its index again from the table.
 */
export class EntitiesChanges1764000017000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE entities_changes (
        generation bigint PRIMARY KEY,
        ext_keys text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE entities_changes');
  }
}
