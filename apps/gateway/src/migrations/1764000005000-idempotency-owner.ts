import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who holds an Idempotency-Key claim (the gateway process that took it, and a token of that one
 * claim, so completing or releasing it twice never touches a later claim) and whether that process
 * is alive (gateway_instances, a heartbeat per process): a claim of a process that died is taken
 * over at once instead of after the age that counts it as abandoned (docs/decisions.md,
 * "Idempotency claims of a gateway that died").
 */
export class IdempotencyOwner1764000005000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE idempotency_keys ADD COLUMN owner text, ADD COLUMN claim text;
      CREATE TABLE gateway_instances (
        id text COLLATE "C" PRIMARY KEY,
        seen_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE gateway_instances;
      ALTER TABLE idempotency_keys DROP COLUMN owner, DROP COLUMN claim;
    `);
  }
}
