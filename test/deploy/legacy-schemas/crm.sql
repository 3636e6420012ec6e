--
-- PostgreSQL database dump
--

\restrict C2JO0qUeQYAlGvosg1Evt1ehPDxGKZGb8ihI1UEvgrRc9u3Y11R7ZQa1vZKrqDd

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: leads_company_count(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.leads_company_count() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: companies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.companies (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    name text NOT NULL,
    domain text,
    sources json DEFAULT '[]'::json NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    industry text,
    size text,
    country text,
    city text,
    description text,
    lead_count integer DEFAULT 0 NOT NULL
);


--
-- Name: export_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.export_attempts (
    export_id text NOT NULL COLLATE pg_catalog."C",
    attempt integer NOT NULL,
    worker_id text NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    outcome text,
    row_count integer,
    error text
);


--
-- Name: exports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.exports (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    livemode boolean NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    format text NOT NULL,
    filter jsonb DEFAULT '{}'::jsonb NOT NULL,
    row_count integer,
    file_key text,
    error text,
    attempts integer DEFAULT 0 NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,
    request_id text,
    idempotency_key text,
    request_hash text,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    started_at timestamp with time zone,
    completed_at timestamp with time zone,
    expires_at timestamp with time zone,
    CONSTRAINT exports_format_check CHECK ((format = ANY (ARRAY['csv'::text, 'json'::text]))),
    CONSTRAINT exports_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'processing'::text, 'completed'::text, 'failed'::text])))
);


--
-- Name: lead_create_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lead_create_keys (
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    key text NOT NULL,
    request_hash text NOT NULL,
    lead_id text NOT NULL COLLATE pg_catalog."C",
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: leads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leads (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    lens text NOT NULL,
    first_name text,
    last_name text,
    full_name text NOT NULL,
    full_name_derived boolean DEFAULT false NOT NULL,
    title text,
    email text,
    email_status text,
    email_confidence integer,
    phone text,
    website text,
    company_id text COLLATE pg_catalog."C",
    company_name text,
    country text,
    revealed boolean DEFAULT false NOT NULL,
    lawful_basis text NOT NULL,
    owner_id text,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    pipeline_id text COLLATE pg_catalog."C",
    stage_id text COLLATE pg_catalog."C",
    stage_name text,
    custom_fields jsonb DEFAULT '{}'::jsonb NOT NULL,
    sources json DEFAULT '[]'::json NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL
);


--
-- Name: notes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notes (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    lead_id text NOT NULL COLLATE pg_catalog."C",
    body text NOT NULL,
    author_id text COLLATE pg_catalog."C",
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL
);


--
-- Name: outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox (
    seq bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    type text NOT NULL,
    envelope json NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    published_at timestamp with time zone
);


--
-- Name: outbox_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.outbox_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.outbox_seq_seq OWNED BY public.outbox.seq;


--
-- Name: pipelines; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pipelines (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    name text NOT NULL,
    lens text,
    is_default boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL
);


--
-- Name: processed_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.processed_events (
    consumer text NOT NULL,
    event_id text NOT NULL COLLATE pg_catalog."C",
    processed_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    id text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: stages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.stages (
    id text NOT NULL COLLATE pg_catalog."C",
    pipeline_id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    name text NOT NULL,
    "position" integer NOT NULL,
    kind text NOT NULL,
    CONSTRAINT stages_kind_check CHECK ((kind = ANY (ARRAY['open'::text, 'won'::text, 'lost'::text])))
);


--
-- Name: tags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tags (
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: task_create_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.task_create_keys (
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    key text NOT NULL,
    request_hash text NOT NULL,
    task_id text NOT NULL COLLATE pg_catalog."C",
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tasks (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    title text NOT NULL,
    lead_id text COLLATE pg_catalog."C",
    assignee_id text COLLATE pg_catalog."C",
    status text DEFAULT 'open'::text NOT NULL,
    due_at timestamp with time zone,
    completed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    CONSTRAINT tasks_check CHECK (((status = 'done'::text) = (completed_at IS NOT NULL))),
    CONSTRAINT tasks_status_check CHECK ((status = ANY (ARRAY['open'::text, 'done'::text])))
);


--
-- Name: outbox seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN seq SET DEFAULT nextval('public.outbox_seq_seq'::regclass);


--
-- Data for Name: companies; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.companies (id, workspace_id, name, domain, sources, created_at, updated_at, industry, size, country, city, description, lead_count) FROM stdin;
\.


--
-- Data for Name: export_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.export_attempts (export_id, attempt, worker_id, claimed_at, finished_at, outcome, row_count, error) FROM stdin;
\.


--
-- Data for Name: exports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.exports (id, workspace_id, livemode, status, format, filter, row_count, file_key, error, attempts, locked_by, locked_until, request_id, idempotency_key, request_hash, created_at, started_at, completed_at, expires_at) FROM stdin;
\.


--
-- Data for Name: lead_create_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.lead_create_keys (workspace_id, key, request_hash, lead_id, created_at) FROM stdin;
\.


--
-- Data for Name: leads; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.leads (id, workspace_id, lens, first_name, last_name, full_name, full_name_derived, title, email, email_status, email_confidence, phone, website, company_id, company_name, country, revealed, lawful_basis, owner_id, tags, pipeline_id, stage_id, stage_name, custom_fields, sources, created_at, updated_at) FROM stdin;
\.


--
-- Data for Name: notes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.notes (id, workspace_id, lead_id, body, author_id, created_at) FROM stdin;
\.


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.outbox (seq, id, type, envelope, created_at, published_at) FROM stdin;
\.


--
-- Data for Name: pipelines; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.pipelines (id, workspace_id, name, lens, is_default, created_at) FROM stdin;
\.


--
-- Data for Name: processed_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.processed_events (consumer, event_id, processed_at) FROM stdin;
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (id, applied_at) FROM stdin;
0000_event_bus	2026-11-26 00:18:28.098807+00
0001_leads	2026-11-26 00:18:28.12513+00
0002_millisecond_timestamps	2026-11-26 00:18:28.176925+00
0003_lead_create_keys	2026-11-26 00:18:28.188316+00
0004_companies_pipelines	2026-11-26 00:18:28.206674+00
0005_tasks_notes	2026-11-26 00:18:28.235596+00
0006_exports	2026-11-26 00:18:28.270466+00
0007_lead_list_indexes	2026-11-26 00:18:28.297346+00
\.


--
-- Data for Name: stages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.stages (id, pipeline_id, workspace_id, name, "position", kind) FROM stdin;
\.


--
-- Data for Name: tags; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tags (workspace_id, name, created_at) FROM stdin;
\.


--
-- Data for Name: task_create_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.task_create_keys (workspace_id, key, request_hash, task_id, created_at) FROM stdin;
\.


--
-- Data for Name: tasks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tasks (id, workspace_id, title, lead_id, assignee_id, status, due_at, completed_at, created_at) FROM stdin;
\.


--
-- Name: outbox_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_seq_seq', 1, false);


--
-- Name: companies companies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.companies
    ADD CONSTRAINT companies_pkey PRIMARY KEY (id);


--
-- Name: export_attempts export_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.export_attempts
    ADD CONSTRAINT export_attempts_pkey PRIMARY KEY (export_id, attempt);


--
-- Name: exports exports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.exports
    ADD CONSTRAINT exports_pkey PRIMARY KEY (id);


--
-- Name: lead_create_keys lead_create_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lead_create_keys
    ADD CONSTRAINT lead_create_keys_pkey PRIMARY KEY (workspace_id, key);


--
-- Name: leads leads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leads
    ADD CONSTRAINT leads_pkey PRIMARY KEY (id);


--
-- Name: notes notes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notes
    ADD CONSTRAINT notes_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_id_key UNIQUE (id);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (seq);


--
-- Name: pipelines pipelines_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_pkey PRIMARY KEY (id);


--
-- Name: processed_events processed_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.processed_events
    ADD CONSTRAINT processed_events_pkey PRIMARY KEY (consumer, event_id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (id);


--
-- Name: stages stages_pipeline_id_position_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stages
    ADD CONSTRAINT stages_pipeline_id_position_key UNIQUE (pipeline_id, "position");


--
-- Name: stages stages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stages
    ADD CONSTRAINT stages_pkey PRIMARY KEY (id);


--
-- Name: tags tags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tags
    ADD CONSTRAINT tags_pkey PRIMARY KEY (workspace_id, name);


--
-- Name: task_create_keys task_create_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_create_keys
    ADD CONSTRAINT task_create_keys_pkey PRIMARY KEY (workspace_id, key);


--
-- Name: tasks tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_pkey PRIMARY KEY (id);


--
-- Name: companies_workspace_country; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_workspace_country ON public.companies USING btree (workspace_id, country, id DESC);


--
-- Name: companies_workspace_domain; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX companies_workspace_domain ON public.companies USING btree (workspace_id, domain) WHERE (domain IS NOT NULL);


--
-- Name: companies_workspace_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_workspace_id ON public.companies USING btree (workspace_id, id DESC);


--
-- Name: companies_workspace_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX companies_workspace_name ON public.companies USING btree (workspace_id, lower(name));


--
-- Name: exports_expiring; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX exports_expiring ON public.exports USING btree (expires_at) WHERE (file_key IS NOT NULL);


--
-- Name: exports_idempotency; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX exports_idempotency ON public.exports USING btree (workspace_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);


--
-- Name: exports_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX exports_pending ON public.exports USING btree (created_at, id) WHERE (status = ANY (ARRAY['queued'::text, 'processing'::text]));


--
-- Name: exports_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX exports_workspace ON public.exports USING btree (workspace_id, id DESC);


--
-- Name: lead_create_keys_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lead_create_keys_created ON public.lead_create_keys USING btree (created_at);


--
-- Name: leads_company; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_company ON public.leads USING btree (company_id) WHERE (company_id IS NOT NULL);


--
-- Name: leads_company_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_company_name_trgm ON public.leads USING gin (company_name public.gin_trgm_ops);


--
-- Name: leads_email_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_email_trgm ON public.leads USING gin (email public.gin_trgm_ops);


--
-- Name: leads_full_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_full_name_trgm ON public.leads USING gin (full_name public.gin_trgm_ops);


--
-- Name: leads_tags; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_tags ON public.leads USING gin (tags);


--
-- Name: leads_workspace_email; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX leads_workspace_email ON public.leads USING btree (workspace_id, lower(email)) WHERE (email IS NOT NULL);


--
-- Name: leads_workspace_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_workspace_id ON public.leads USING btree (workspace_id, id DESC);


--
-- Name: leads_workspace_lens; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_workspace_lens ON public.leads USING btree (workspace_id, lens, id DESC);


--
-- Name: leads_workspace_stage; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_workspace_stage ON public.leads USING btree (workspace_id, stage_id, id DESC) WHERE (stage_id IS NOT NULL);


--
-- Name: leads_workspace_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_workspace_updated ON public.leads USING btree (workspace_id, updated_at);


--
-- Name: notes_lead; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notes_lead ON public.notes USING btree (lead_id, id DESC);


--
-- Name: outbox_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_unpublished ON public.outbox USING btree (seq) WHERE (published_at IS NULL);


--
-- Name: pipelines_one_default; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX pipelines_one_default ON public.pipelines USING btree (workspace_id) WHERE is_default;


--
-- Name: pipelines_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_workspace ON public.pipelines USING btree (workspace_id, id DESC);


--
-- Name: task_create_keys_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_create_keys_created ON public.task_create_keys USING btree (created_at);


--
-- Name: tasks_lead; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_lead ON public.tasks USING btree (lead_id, id DESC) WHERE (lead_id IS NOT NULL);


--
-- Name: tasks_workspace_assignee; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_workspace_assignee ON public.tasks USING btree (workspace_id, assignee_id, id DESC);


--
-- Name: tasks_workspace_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_workspace_due ON public.tasks USING btree (workspace_id, due_at) WHERE (due_at IS NOT NULL);


--
-- Name: tasks_workspace_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_workspace_id ON public.tasks USING btree (workspace_id, id DESC);


--
-- Name: tasks_workspace_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_workspace_status ON public.tasks USING btree (workspace_id, status, id DESC);


--
-- Name: leads leads_company_count; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER leads_company_count AFTER INSERT OR DELETE OR UPDATE OF company_id ON public.leads FOR EACH ROW EXECUTE FUNCTION public.leads_company_count();


--
-- Name: export_attempts export_attempts_export_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.export_attempts
    ADD CONSTRAINT export_attempts_export_id_fkey FOREIGN KEY (export_id) REFERENCES public.exports(id) ON DELETE CASCADE;


--
-- Name: leads leads_company_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leads
    ADD CONSTRAINT leads_company_id_fkey FOREIGN KEY (company_id) REFERENCES public.companies(id) ON DELETE SET NULL;


--
-- Name: notes notes_lead_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notes
    ADD CONSTRAINT notes_lead_id_fkey FOREIGN KEY (lead_id) REFERENCES public.leads(id) ON DELETE CASCADE;


--
-- Name: stages stages_pipeline_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stages
    ADD CONSTRAINT stages_pipeline_id_fkey FOREIGN KEY (pipeline_id) REFERENCES public.pipelines(id) ON DELETE CASCADE;


--
-- Name: tasks tasks_lead_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_lead_id_fkey FOREIGN KEY (lead_id) REFERENCES public.leads(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict C2JO0qUeQYAlGvosg1Evt1ehPDxGKZGb8ihI1UEvgrRc9u3Y11R7ZQa1vZKrqDd

