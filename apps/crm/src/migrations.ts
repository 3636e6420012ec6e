import { Migration } from '@app/platform/db';
import { DEAD_EVENTS_MIGRATION } from '@app/platform/dead-letters';
import { EVENT_BUS_MIGRATION, OUTBOX_TRACE_MIGRATION } from '@app/platform/events';

export const CRM_MIGRATIONS: Migration[] = [
  EVENT_BUS_MIGRATION,
  {
    id: '0001_leads',
    up: `
      CREATE TABLE companies (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        domain text,
        sources json NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX companies_workspace_domain ON companies (workspace_id, domain) WHERE domain IS NOT NULL;
      CREATE INDEX companies_workspace_name ON companies (workspace_id, lower(name));

      CREATE TABLE tags (
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, name)
      );

      CREATE TABLE leads (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        lens text NOT NULL,
        first_name text,
        last_name text,
        full_name text NOT NULL,
        full_name_derived boolean NOT NULL DEFAULT false,
        title text,
        email text,
        email_status text,
        email_confidence int,
        phone text,
        website text,
        company_id text COLLATE "C" REFERENCES companies (id) ON DELETE SET NULL,
        company_name text,
        country text,
        revealed boolean NOT NULL DEFAULT false,
        lawful_basis text NOT NULL,
        owner_id text,
        tags text[] NOT NULL DEFAULT '{}',
        pipeline_id text COLLATE "C",
        stage_id text COLLATE "C",
        stage_name text,
        custom_fields jsonb NOT NULL DEFAULT '{}',
        sources json NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX leads_workspace_email ON leads (workspace_id, lower(email)) WHERE email IS NOT NULL;
      CREATE INDEX leads_workspace_id ON leads (workspace_id, id DESC);
      CREATE INDEX leads_workspace_stage ON leads (workspace_id, stage_id, id DESC) WHERE stage_id IS NOT NULL;
      CREATE INDEX leads_workspace_updated ON leads (workspace_id, updated_at);
      CREATE INDEX leads_tags ON leads USING gin (tags);
      CREATE INDEX leads_company ON leads (company_id) WHERE company_id IS NOT NULL;
    `,
  },
  {
    // The API shows milliseconds; storing microseconds made `updated_since=<a lead's updated_at>`
    // return that same lead.
    id: '0002_millisecond_timestamps',
    up: `
      ALTER TABLE leads ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now()),
                        ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());
      ALTER TABLE companies ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now()),
                            ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', now());
      UPDATE leads SET created_at = date_trunc('milliseconds', created_at), updated_at = date_trunc('milliseconds', updated_at);
    `,
  },
  {
    // Which lead an Idempotency-Key created: a retry after a gateway timeout returns that lead
    // instead of creating a second one (see RequestContext.idempotency).
    id: '0003_lead_create_keys',
    up: `
      CREATE TABLE lead_create_keys (
        workspace_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        lead_id text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX lead_create_keys_created ON lead_create_keys (created_at);
    `,
  },
  {
    // Companies get their descriptive fields and an exact lead_count kept by a trigger, so every
    // path that links or unlinks a lead (create, delete, re-link) keeps it right.
    id: '0004_companies_pipelines',
    up: `
      ALTER TABLE companies
        ADD COLUMN industry text,
        ADD COLUMN size text,
        ADD COLUMN country text,
        ADD COLUMN city text,
        ADD COLUMN description text,
        ADD COLUMN lead_count int NOT NULL DEFAULT 0;
      UPDATE companies c SET lead_count = (SELECT count(*) FROM leads l WHERE l.company_id = c.id);
      CREATE INDEX companies_workspace_id ON companies (workspace_id, id DESC);
      CREATE INDEX companies_workspace_country ON companies (workspace_id, country, id DESC);

      CREATE FUNCTION leads_company_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.company_id IS NOT NULL
           AND (TG_OP = 'DELETE' OR NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
          UPDATE companies SET lead_count = lead_count - 1 WHERE id = OLD.company_id;
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.company_id IS NOT NULL
           AND (TG_OP = 'INSERT' OR NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
          UPDATE companies SET lead_count = lead_count + 1 WHERE id = NEW.company_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER leads_company_count AFTER INSERT OR DELETE OR UPDATE OF company_id ON leads
        FOR EACH ROW EXECUTE FUNCTION leads_company_count();

      CREATE TABLE pipelines (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        lens text,
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX pipelines_workspace ON pipelines (workspace_id, id DESC);
      CREATE UNIQUE INDEX pipelines_one_default ON pipelines (workspace_id) WHERE is_default;
      CREATE TABLE stages (
        id text COLLATE "C" PRIMARY KEY,
        pipeline_id text COLLATE "C" NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        position int NOT NULL,
        kind text NOT NULL CHECK (kind IN ('open', 'won', 'lost')),
        UNIQUE (pipeline_id, position)
      );
    `,
  },
  {
    // Tasks and notes hang off their lead: deleting a lead deletes them in the same statement
    // (ON DELETE CASCADE), so inside the transaction that records lead.deleted.
    id: '0005_tasks_notes',
    up: `
      CREATE TABLE tasks (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        title text NOT NULL,
        lead_id text COLLATE "C" REFERENCES leads (id) ON DELETE CASCADE,
        assignee_id text COLLATE "C",
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
        due_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        CHECK ((status = 'done') = (completed_at IS NOT NULL))
      );
      CREATE INDEX tasks_workspace_id ON tasks (workspace_id, id DESC);
      CREATE INDEX tasks_lead ON tasks (lead_id, id DESC) WHERE lead_id IS NOT NULL;
      CREATE INDEX tasks_workspace_assignee ON tasks (workspace_id, assignee_id, id DESC);
      CREATE INDEX tasks_workspace_status ON tasks (workspace_id, status, id DESC);
      CREATE INDEX tasks_workspace_due ON tasks (workspace_id, due_at) WHERE due_at IS NOT NULL;

      CREATE TABLE task_create_keys (
        workspace_id text COLLATE "C" NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        task_id text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, key)
      );
      CREATE INDEX task_create_keys_created ON task_create_keys (created_at);

      CREATE TABLE notes (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        lead_id text COLLATE "C" NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
        body text NOT NULL,
        author_id text COLLATE "C",
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX notes_lead ON notes (lead_id, id DESC);
    `,
  },
  {
    // Background exports: the table is the job queue (claims with FOR UPDATE SKIP LOCKED, a
    // lease renewed by heartbeats), export_attempts logs every claim.
    id: '0006_exports',
    up: `
      CREATE TABLE exports (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        livemode boolean NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
        format text NOT NULL CHECK (format IN ('csv', 'json')),
        filter jsonb NOT NULL DEFAULT '{}',
        row_count int,
        file_key text,
        error text,
        attempts int NOT NULL DEFAULT 0,
        locked_by text,
        locked_until timestamptz,
        request_id text,
        idempotency_key text,
        request_hash text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        started_at timestamptz,
        completed_at timestamptz,
        expires_at timestamptz
      );
      CREATE INDEX exports_workspace ON exports (workspace_id, id DESC);
      CREATE INDEX exports_pending ON exports (created_at, id) WHERE status IN ('queued', 'processing');
      CREATE INDEX exports_expiring ON exports (expires_at) WHERE file_key IS NOT NULL;
      CREATE UNIQUE INDEX exports_idempotency ON exports (workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE TABLE export_attempts (
        export_id text COLLATE "C" NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
        attempt int NOT NULL,
        worker_id text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        outcome text,
        row_count int,
        error text,
        PRIMARY KEY (export_id, attempt)
      );
    `,
  },
  {
    // GET /leads over millions of leads: lens lists walk their own index in id order, and `q`
    // (a substring of name, email or company) is answered from trigram indexes when it is rare.
    id: '0007_lead_list_indexes',
    up: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE INDEX leads_workspace_lens ON leads (workspace_id, lens, id DESC);
      CREATE INDEX leads_full_name_trgm ON leads USING gin (full_name gin_trgm_ops);
      CREATE INDEX leads_email_trgm ON leads USING gin (email gin_trgm_ops);
      CREATE INDEX leads_company_name_trgm ON leads USING gin (company_name gin_trgm_ops);
    `,
  },
  {
    // Lists of leads (filter.list_id of exports). A member row goes with its lead through the
    // foreign key (ON DELETE CASCADE): part of the lead's DELETE, so of the transaction that
    // records lead.deleted. list_members_lead serves that cascade; the primary key serves exports.
    id: '0008_lists',
    up: `
      CREATE TABLE lists (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE UNIQUE INDEX lists_workspace_name ON lists (workspace_id, name);
      CREATE TABLE list_members (
        list_id text COLLATE "C" NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
        lead_id text COLLATE "C" NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (list_id, lead_id)
      );
      CREATE INDEX list_members_lead ON list_members (lead_id);
    `,
  },
  DEAD_EVENTS_MIGRATION,
  OUTBOX_TRACE_MIGRATION,
];
