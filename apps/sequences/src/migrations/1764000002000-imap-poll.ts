import { MigrationInterface, QueryRunner } from 'typeorm';

export class ImapPoll1764000002000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0002_imap_poll';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- IMAP polling (apps/sequences/src/inbound/imap-poller.ts): one row per mailbox with an IMAP URL.
      -- A replica polls a mailbox only while it holds the session advisory lock (class 72201448, hashtext(mailbox_id))
      -- and reads this row after taking it, so two replicas never fetch the same UIDs.
      CREATE TABLE mailbox_imap_state (
        mailbox_id text COLLATE "C" PRIMARY KEY REFERENCES mailboxes ON DELETE CASCADE,
        -- INBOX's UIDVALIDITY when last_uid was recorded; a different value means the UIDs were renumbered
        uid_validity bigint,
        -- every message of INBOX up to this UID has been handled
        last_uid bigint NOT NULL DEFAULT 0,
        next_poll_at timestamptz NOT NULL DEFAULT now(),
        last_polled_at timestamptz,
        last_error text,
        consecutive_failures integer NOT NULL DEFAULT 0,
        -- a message whose handling keeps failing is skipped after a few polls
        stuck_uid bigint,
        stuck_count integer NOT NULL DEFAULT 0
      );
      CREATE INDEX mailbox_imap_state_due ON mailbox_imap_state (next_poll_at);
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE mailbox_imap_state;
    `);
  }
}
