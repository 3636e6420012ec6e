import { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * The platform's tables, which every service (or every service with durable consumers) carries in
 * its own database. Each service places them in its history with a subclass whose name ends in
 * the timestamp of that place (`class EventBus1764000000000 extends EventBusMigration {}`).
 */

/** The event bus: the service's outbox and the ids its consumers processed. */
export abstract class EventBusMigration implements MigrationInterface {
  readonly legacyId = '0000_event_bus';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outbox (
        seq bigserial PRIMARY KEY,
        id text COLLATE "C" NOT NULL UNIQUE,
        type text NOT NULL,
        envelope json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      );
      CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;
      CREATE TABLE processed_events (
        consumer text NOT NULL,
        event_id text COLLATE "C" NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE processed_events; DROP TABLE outbox;');
  }
}

/** The outbox's trace context (recordEvent, OutboxRelay). */
export abstract class OutboxTraceContextMigration implements MigrationInterface {
  readonly legacyId = '0000_outbox_trace_context';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox ADD COLUMN trace_context json;');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox DROP COLUMN trace_context;');
  }
}

/** The dead-letter store of a service's durable consumers (DeadLetters). */
export abstract class DeadEventsMigration implements MigrationInterface {
  readonly legacyId = '0000_dead_events';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dead_events (
        consumer text NOT NULL,
        event_id text COLLATE "C" NOT NULL,
        type text NOT NULL,
        envelope jsonb NOT NULL,
        last_error text NOT NULL,
        attempts int NOT NULL,
        first_failed_at timestamptz NOT NULL DEFAULT now(),
        last_failed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      );
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE dead_events;');
  }
}
