import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who holds a reveal's claim (the search process that took it) and whether that process is alive
 * (search_instances, a heartbeat per process, beside a liveness lock it holds on a session of its
 * own): a claim of a process that died is taken over within a couple of seconds, and a claim of a
 * live one never, however long its heartbeat on the claim itself was held up (docs/decisions.md,
 * "Retrying a request on another replica"). heartbeat_at (1764000012000) is no longer written.
 */
export class RevealsOwner1764000014000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE reveals ADD COLUMN owner text;
      CREATE TABLE search_instances (
        id text COLLATE "C" PRIMARY KEY,
        seen_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE search_instances;
      ALTER TABLE reveals DROP COLUMN owner;
    `);
  }
}
