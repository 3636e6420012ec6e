import { MigrationInterface, QueryRunner } from 'typeorm';

export class DeliveryTraceContext1764000004000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0002_delivery_trace_context';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
ALTER TABLE webhook_deliveries ADD COLUMN trace_context json;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_deliveries DROP COLUMN trace_context;
    `);
  }
}
