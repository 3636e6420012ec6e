import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /events/stream (issue 38): each stored event carries the id of the transaction that stored
 * it, so a reader can tell which events are final (their transaction ended before every one still
 * running) and read them in an order no later commit can insert into.
 */
export class EventsStream1764000009000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
      CREATE INDEX webhook_events_stream ON webhook_events (workspace_id, livemode, tx, id);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX webhook_events_stream;
      ALTER TABLE webhook_events DROP COLUMN tx;
    `);
  }
}
