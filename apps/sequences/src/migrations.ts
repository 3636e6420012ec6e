import { Migration } from '@app/platform/db';
import { DEAD_EVENTS_MIGRATION } from '@app/platform/dead-letters';
import { EVENT_BUS_MIGRATION, OUTBOX_TRACE_MIGRATION } from '@app/platform/events';

/** Applied in order at boot; an applied migration is never edited, only followed by a new one. */
export const MIGRATIONS: Migration[] = [
  EVENT_BUS_MIGRATION,
  {
    id: '0001_sequences',
    up: `
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
    `,
  },
  {
    id: '0002_imap_poll',
    up: `
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
    `,
  },
  {
    id: '0003_enrollment_removal',
    up: `
      -- DELETE of an enrollment that had already ended (completed, or stopped for a reply, bounce,
      -- unsubscribe or suppression) makes it stopped/removed as the spec says; how it had ended is
      -- kept here so the sequence's stats (replied, unsubscribed) still count it.
      ALTER TABLE enrollments ADD COLUMN ended_before_removal text
        CHECK (ended_before_removal IN ('completed', 'replied', 'bounced', 'unsubscribed', 'suppressed'));
    `,
  },
  DEAD_EVENTS_MIGRATION,
  OUTBOX_TRACE_MIGRATION,
  {
    // the trace and request id of the enrollment, carried to each of its emails and their send
    id: '0004_email_trace_context',
    up: `
      ALTER TABLE enrollments ADD COLUMN trace_context json;
      ALTER TABLE email_messages ADD COLUMN trace_context json;
    `,
  },
];
