import { MigrationInterface, QueryRunner } from 'typeorm';

export class EntitiesGeneration1764000003000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0003_entities_generation';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- bumped after every write to entities commits: search pages keep a query's ranked ids per
      -- process, stamped with the generation they were read at, and read them again when it moved
      CREATE SEQUENCE entities_generation;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP SEQUENCE entities_generation;
    `);
  }
}
