import { MigrationInterface, QueryRunner } from 'typeorm';

export class MillisecondTimestamps1764000002000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0002_millisecond_timestamps';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE leads ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now()),
                        ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());
      ALTER TABLE companies ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now()),
                            ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());
      UPDATE leads SET created_at = date_trunc('milliseconds', created_at), updated_at = date_trunc('milliseconds', updated_at);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE leads ALTER COLUMN created_at SET DEFAULT now(),
                        ALTER COLUMN updated_at SET DEFAULT now();
      ALTER TABLE companies ALTER COLUMN created_at SET DEFAULT now(),
                            ALTER COLUMN updated_at SET DEFAULT now();
    `);
  }
}
