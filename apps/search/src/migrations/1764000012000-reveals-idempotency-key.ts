import { MigrationInterface, QueryRunner } from 'typeorm';

export class RevealsIdempotencyKey1764000012000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // The Idempotency-Key of the request that claimed the reveal: a retry of that request (the RPC
    // client asking another replica, or the client after a 5xx) answers as the first attempt did.
    // heartbeat_at: renewed by the claimer while it works, so a retry of the same request can tell
    // a claimer that died from one that is slow
    await queryRunner.query('ALTER TABLE reveals ADD COLUMN idempotency_key text, ADD COLUMN heartbeat_at timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE reveals DROP COLUMN idempotency_key, DROP COLUMN heartbeat_at');
  }
}
