import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A rolled secret's predecessor, kept (encrypted like the secret) until its grace period ends:
 * deliveries until then carry a `v1` signature with each (issue 24).
 */
export class SecretRoll1764000005000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_enc text, ADD COLUMN previous_secret_expires_at timestamptz;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_endpoints DROP COLUMN previous_secret_expires_at, DROP COLUMN previous_secret_enc;
    `);
  }
}
