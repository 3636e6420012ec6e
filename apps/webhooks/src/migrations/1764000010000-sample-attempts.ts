import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Attempts a delivery gets at most when it is not the retry schedule's (issue 34): a sample
 * event (POST /webhook_endpoints/{id}/test) is retried once, so a URL that fails cannot be sent
 * the schedule's seven attempts per request. NULL: the schedule's.
 */
export class SampleAttempts1764000010000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN max_attempts smallint;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_deliveries DROP COLUMN max_attempts;
    `);
  }
}
