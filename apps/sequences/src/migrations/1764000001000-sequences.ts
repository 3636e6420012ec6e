import { MigrationInterface, QueryRunner } from 'typeorm';

export class Sequences1764000001000 implements MigrationInterface {
  /** Its id under the migrator before TypeORM (schema_migrations): databases it migrated are adopted. */
  readonly legacyId = '0001_sequences';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mailboxes (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        email text NOT NULL,
        smtp_host text NOT NULL,
        smtp_port integer NOT NULL,
        smtp_secure boolean NOT NULL,
        -- user:password of the SMTP URL and the whole IMAP URL, AES-256-GCM under SEQUENCES_SECRET_KEY
        smtp_auth_enc text,
        imap_url_enc text,
        imap_host text,
        daily_cap integer NOT NULL CHECK (daily_cap > 0),
        timezone text NOT NULL,
        window_start time NOT NULL,
        window_end time NOT NULL,
        verified boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX mailboxes_workspace ON mailboxes (workspace_id, id);

      CREATE TABLE sequences (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        name text NOT NULL,
        lens text,
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused', 'completed')),
        mailbox_ids text[] NOT NULL,
        business_days_only boolean NOT NULL DEFAULT false,
        paused_reason text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        launched_at timestamptz
      );
      CREATE INDEX sequences_list ON sequences (workspace_id, id DESC);

      CREATE TABLE sequence_steps (
        sequence_id text COLLATE "C" NOT NULL REFERENCES sequences ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 1),
        type text NOT NULL CHECK (type IN ('email', 'wait')),
        subject text,
        body text,
        wait_days integer CHECK (wait_days >= 0),
        PRIMARY KEY (sequence_id, position),
        CHECK ((type = 'email' AND subject IS NOT NULL AND body IS NOT NULL AND wait_days IS NULL)
            OR (type = 'wait' AND subject IS NULL AND body IS NULL AND wait_days IS NOT NULL))
      );

      CREATE TABLE enrollments (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        sequence_id text COLLATE "C" NOT NULL REFERENCES sequences ON DELETE CASCADE,
        lead_id text COLLATE "C" NOT NULL,
        -- the lead's contact fields at enrollment, for merge tags and the checks before each send
        email text NOT NULL,
        lead jsonb NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'completed', 'stopped')),
        current_step integer NOT NULL DEFAULT 1,
        next_send_at timestamptz,
        hold_reason text,
        last_mailbox_id text,
        enrolled_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        stopped_at timestamptz,
        stop_reason text CHECK (stop_reason IN ('replied', 'bounced', 'unsubscribed', 'removed', 'suppressed')),
        UNIQUE (sequence_id, lead_id),
        CHECK ((status = 'stopped') = (stop_reason IS NOT NULL))
      );
      CREATE INDEX enrollments_due ON enrollments (next_send_at) WHERE status = 'active';
      CREATE INDEX enrollments_lead ON enrollments (workspace_id, lead_id);
      CREATE INDEX enrollments_email ON enrollments (lower(email)) WHERE status IN ('active', 'paused');

      CREATE TABLE email_messages (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        lead_id text NOT NULL,
        sequence_id text,
        enrollment_id text,
        step_position integer,
        mailbox_id text NOT NULL,
        direction text NOT NULL CHECK (direction IN ('outbound', 'inbound')),
        from_addr text NOT NULL,
        to_addr text NOT NULL,
        subject text NOT NULL,
        body text,
        snippet text NOT NULL,
        -- RFC 5322 Message-ID, unique: replies and bounces are matched by it
        message_id text NOT NULL UNIQUE,
        in_reply_to text,
        -- outbound: queued (recorded, not yet handed over) -> sent | cancelled | failed; bounced after a hard bounce
        status text NOT NULL CHECK (status IN ('queued', 'sent', 'cancelled', 'failed', 'bounced', 'received')),
        attempts integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        error text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        sent_at timestamptz
      );
      -- one outbound message per enrollment step, whatever the number of replicas
      CREATE UNIQUE INDEX email_messages_once ON email_messages (enrollment_id, step_position) WHERE direction = 'outbound';
      CREATE INDEX email_messages_queued ON email_messages (lease_until) WHERE status = 'queued';
      CREATE INDEX email_messages_mailbox_day ON email_messages (mailbox_id, created_at) WHERE direction = 'outbound';
      CREATE INDEX email_messages_sequence ON email_messages (sequence_id, status);

      CREATE TABLE suppressions (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text,
        scope text NOT NULL CHECK (scope IN ('workspace', 'global')),
        type text NOT NULL CHECK (type IN ('email', 'domain')),
        value text NOT NULL CHECK (value = lower(value)),
        reason text NOT NULL CHECK (reason IN ('unsubscribe', 'bounce', 'complaint', 'opt_out', 'manual')),
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        CHECK ((scope = 'global') = (workspace_id IS NULL))
      );
      CREATE UNIQUE INDEX suppressions_once ON suppressions (coalesce(workspace_id, ''), type, value);
      CREATE INDEX suppressions_value ON suppressions (type, value);

      CREATE TABLE country_rules (
        workspace_id text NOT NULL,
        country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
        rule text NOT NULL CHECK (rule IN ('allow', 'block', 'consent_required')),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, country)
      );

      -- testing only (SEQUENCES_TEST_CLOCK=on): how far the engine's clock runs ahead
      CREATE TABLE test_clock (one boolean PRIMARY KEY DEFAULT true CHECK (one), offset_ms bigint NOT NULL DEFAULT 0);
      INSERT INTO test_clock DEFAULT VALUES;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE test_clock;
      DROP TABLE country_rules;
      DROP TABLE suppressions;
      DROP TABLE email_messages;
      DROP TABLE enrollments;
      DROP TABLE sequence_steps;
      DROP TABLE sequences;
      DROP TABLE mailboxes;
    `);
  }
}
