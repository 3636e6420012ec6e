import { MigrationInterface, QueryRunner } from 'typeorm';

export class EnrollmentsIdempotencyKey1764000007000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // The Idempotency-Key of the request that enrolled the lead: a retry of that request (the RPC
    // client asking another replica, or the client after a 5xx) reports it enrolled, as the first
    // attempt did, not `already_enrolled`
    await queryRunner.query('ALTER TABLE enrollments ADD COLUMN idempotency_key text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE enrollments DROP COLUMN idempotency_key');
  }
}
