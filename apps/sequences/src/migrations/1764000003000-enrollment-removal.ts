import { MigrationInterface, QueryRunner } from 'typeorm';

export class EnrollmentRemoval1764000003000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0003_enrollment_removal';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- DELETE of an enrollment that had already ended (completed, or stopped for a reply, bounce,
      -- unsubscribe or suppression) makes it stopped/removed as the spec says; how it had ended is
      -- kept here so the sequence's stats (replied, unsubscribed) still count it.
      ALTER TABLE enrollments ADD COLUMN ended_before_removal text
        CHECK (ended_before_removal IN ('completed', 'replied', 'bounced', 'unsubscribed', 'suppressed'));
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE enrollments DROP COLUMN ended_before_removal;
    `);
  }
}
