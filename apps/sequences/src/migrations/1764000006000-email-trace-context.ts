import { MigrationInterface, QueryRunner } from 'typeorm';

export class EmailTraceContext1764000006000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0004_email_trace_context';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE enrollments ADD COLUMN trace_context json;
      ALTER TABLE email_messages ADD COLUMN trace_context json;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE email_messages DROP COLUMN trace_context;
      ALTER TABLE enrollments DROP COLUMN trace_context;
    `);
  }
}
