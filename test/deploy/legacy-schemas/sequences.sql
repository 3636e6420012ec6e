--
-- PostgreSQL database dump
--

\restrict drFn732qlsIiXrTXEtPGMsCaLSJsbxfzSmhBFIQZYb0eUCTbeFioLCyYapIullH

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

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: country_rules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.country_rules (
    workspace_id text NOT NULL,
    country text NOT NULL,
    rule text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT country_rules_country_check CHECK ((country ~ '^[A-Z]{2}$'::text)),
    CONSTRAINT country_rules_rule_check CHECK ((rule = ANY (ARRAY['allow'::text, 'block'::text, 'consent_required'::text])))
);


--
-- Name: email_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_messages (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL,
    lead_id text NOT NULL,
    sequence_id text,
    enrollment_id text,
    step_position integer,
    mailbox_id text NOT NULL,
    direction text NOT NULL,
    from_addr text NOT NULL,
    to_addr text NOT NULL,
    subject text NOT NULL,
    body text,
    snippet text NOT NULL,
    message_id text NOT NULL,
    in_reply_to text,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    lease_until timestamp with time zone,
    error text,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    sent_at timestamp with time zone,
    CONSTRAINT email_messages_direction_check CHECK ((direction = ANY (ARRAY['outbound'::text, 'inbound'::text]))),
    CONSTRAINT email_messages_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'sent'::text, 'cancelled'::text, 'failed'::text, 'bounced'::text, 'received'::text])))
);


--
-- Name: enrollments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enrollments (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL,
    sequence_id text NOT NULL COLLATE pg_catalog."C",
    lead_id text NOT NULL COLLATE pg_catalog."C",
    email text NOT NULL,
    lead jsonb NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    current_step integer DEFAULT 1 NOT NULL,
    next_send_at timestamp with time zone,
    hold_reason text,
    last_mailbox_id text,
    enrolled_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    stopped_at timestamp with time zone,
    stop_reason text,
    CONSTRAINT enrollments_check CHECK (((status = 'stopped'::text) = (stop_reason IS NOT NULL))),
    CONSTRAINT enrollments_status_check CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text, 'completed'::text, 'stopped'::text]))),
    CONSTRAINT enrollments_stop_reason_check CHECK ((stop_reason = ANY (ARRAY['replied'::text, 'bounced'::text, 'unsubscribed'::text, 'removed'::text, 'suppressed'::text])))
);


--
-- Name: mailbox_imap_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mailbox_imap_state (
    mailbox_id text NOT NULL COLLATE pg_catalog."C",
    uid_validity bigint,
    last_uid bigint DEFAULT 0 NOT NULL,
    next_poll_at timestamp with time zone DEFAULT now() NOT NULL,
    last_polled_at timestamp with time zone,
    last_error text,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    stuck_uid bigint,
    stuck_count integer DEFAULT 0 NOT NULL
);


--
-- Name: mailboxes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mailboxes (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL,
    email text NOT NULL,
    smtp_host text NOT NULL,
    smtp_port integer NOT NULL,
    smtp_secure boolean NOT NULL,
    smtp_auth_enc text,
    imap_url_enc text,
    imap_host text,
    daily_cap integer NOT NULL,
    timezone text NOT NULL,
    window_start time without time zone NOT NULL,
    window_end time without time zone NOT NULL,
    verified boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    CONSTRAINT mailboxes_daily_cap_check CHECK ((daily_cap > 0))
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
-- Name: sequence_steps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sequence_steps (
    sequence_id text NOT NULL COLLATE pg_catalog."C",
    "position" integer NOT NULL,
    type text NOT NULL,
    subject text,
    body text,
    wait_days integer,
    CONSTRAINT sequence_steps_check CHECK ((((type = 'email'::text) AND (subject IS NOT NULL) AND (body IS NOT NULL) AND (wait_days IS NULL)) OR ((type = 'wait'::text) AND (subject IS NULL) AND (body IS NULL) AND (wait_days IS NOT NULL)))),
    CONSTRAINT sequence_steps_position_check CHECK (("position" >= 1)),
    CONSTRAINT sequence_steps_type_check CHECK ((type = ANY (ARRAY['email'::text, 'wait'::text]))),
    CONSTRAINT sequence_steps_wait_days_check CHECK ((wait_days >= 0))
);


--
-- Name: sequences; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sequences (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL,
    name text NOT NULL,
    lens text,
    status text DEFAULT 'draft'::text NOT NULL,
    mailbox_ids text[] NOT NULL,
    business_days_only boolean DEFAULT false NOT NULL,
    paused_reason text,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    launched_at timestamp with time zone,
    CONSTRAINT sequences_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'active'::text, 'paused'::text, 'completed'::text])))
);


--
-- Name: suppressions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.suppressions (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text,
    scope text NOT NULL,
    type text NOT NULL,
    value text NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    CONSTRAINT suppressions_check CHECK (((scope = 'global'::text) = (workspace_id IS NULL))),
    CONSTRAINT suppressions_reason_check CHECK ((reason = ANY (ARRAY['unsubscribe'::text, 'bounce'::text, 'complaint'::text, 'opt_out'::text, 'manual'::text]))),
    CONSTRAINT suppressions_scope_check CHECK ((scope = ANY (ARRAY['workspace'::text, 'global'::text]))),
    CONSTRAINT suppressions_type_check CHECK ((type = ANY (ARRAY['email'::text, 'domain'::text]))),
    CONSTRAINT suppressions_value_check CHECK ((value = lower(value)))
);


--
-- Name: test_clock; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.test_clock (
    one boolean DEFAULT true NOT NULL,
    offset_ms bigint DEFAULT 0 NOT NULL,
    CONSTRAINT test_clock_one_check CHECK (one)
);


--
-- Name: outbox seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN seq SET DEFAULT nextval('public.outbox_seq_seq'::regclass);


--
-- Data for Name: country_rules; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.country_rules (workspace_id, country, rule, updated_at) FROM stdin;
\.


--
-- Data for Name: email_messages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.email_messages (id, workspace_id, lead_id, sequence_id, enrollment_id, step_position, mailbox_id, direction, from_addr, to_addr, subject, body, snippet, message_id, in_reply_to, status, attempts, lease_until, error, created_at, sent_at) FROM stdin;
\.


--
-- Data for Name: enrollments; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.enrollments (id, workspace_id, sequence_id, lead_id, email, lead, status, current_step, next_send_at, hold_reason, last_mailbox_id, enrolled_at, stopped_at, stop_reason) FROM stdin;
\.


--
-- Data for Name: mailbox_imap_state; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.mailbox_imap_state (mailbox_id, uid_validity, last_uid, next_poll_at, last_polled_at, last_error, consecutive_failures, stuck_uid, stuck_count) FROM stdin;
\.


--
-- Data for Name: mailboxes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.mailboxes (id, workspace_id, email, smtp_host, smtp_port, smtp_secure, smtp_auth_enc, imap_url_enc, imap_host, daily_cap, timezone, window_start, window_end, verified, created_at) FROM stdin;
\.


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.outbox (seq, id, type, envelope, created_at, published_at) FROM stdin;
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
0000_event_bus	2026-11-26 00:18:41.988603+00
0001_sequences	2026-11-26 00:18:42.019826+00
0002_imap_poll	2026-11-26 00:18:42.135654+00
\.


--
-- Data for Name: sequence_steps; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sequence_steps (sequence_id, "position", type, subject, body, wait_days) FROM stdin;
\.


--
-- Data for Name: sequences; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sequences (id, workspace_id, name, lens, status, mailbox_ids, business_days_only, paused_reason, created_at, launched_at) FROM stdin;
\.


--
-- Data for Name: suppressions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.suppressions (id, workspace_id, scope, type, value, reason, created_at) FROM stdin;
\.


--
-- Data for Name: test_clock; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.test_clock (one, offset_ms) FROM stdin;
t	0
\.


--
-- Name: outbox_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_seq_seq', 1, false);


--
-- Name: country_rules country_rules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.country_rules
    ADD CONSTRAINT country_rules_pkey PRIMARY KEY (workspace_id, country);


--
-- Name: email_messages email_messages_message_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_messages
    ADD CONSTRAINT email_messages_message_id_key UNIQUE (message_id);


--
-- Name: email_messages email_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_messages
    ADD CONSTRAINT email_messages_pkey PRIMARY KEY (id);


--
-- Name: enrollments enrollments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrollments
    ADD CONSTRAINT enrollments_pkey PRIMARY KEY (id);


--
-- Name: enrollments enrollments_sequence_id_lead_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrollments
    ADD CONSTRAINT enrollments_sequence_id_lead_id_key UNIQUE (sequence_id, lead_id);


--
-- Name: mailbox_imap_state mailbox_imap_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mailbox_imap_state
    ADD CONSTRAINT mailbox_imap_state_pkey PRIMARY KEY (mailbox_id);


--
-- Name: mailboxes mailboxes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mailboxes
    ADD CONSTRAINT mailboxes_pkey PRIMARY KEY (id);


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
-- Name: sequence_steps sequence_steps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sequence_steps
    ADD CONSTRAINT sequence_steps_pkey PRIMARY KEY (sequence_id, "position");


--
-- Name: sequences sequences_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sequences
    ADD CONSTRAINT sequences_pkey PRIMARY KEY (id);


--
-- Name: suppressions suppressions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.suppressions
    ADD CONSTRAINT suppressions_pkey PRIMARY KEY (id);


--
-- Name: test_clock test_clock_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.test_clock
    ADD CONSTRAINT test_clock_pkey PRIMARY KEY (one);


--
-- Name: email_messages_mailbox_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX email_messages_mailbox_day ON public.email_messages USING btree (mailbox_id, created_at) WHERE (direction = 'outbound'::text);


--
-- Name: email_messages_once; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX email_messages_once ON public.email_messages USING btree (enrollment_id, step_position) WHERE (direction = 'outbound'::text);


--
-- Name: email_messages_queued; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX email_messages_queued ON public.email_messages USING btree (lease_until) WHERE (status = 'queued'::text);


--
-- Name: email_messages_sequence; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX email_messages_sequence ON public.email_messages USING btree (sequence_id, status);


--
-- Name: enrollments_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrollments_due ON public.enrollments USING btree (next_send_at) WHERE (status = 'active'::text);


--
-- Name: enrollments_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrollments_email ON public.enrollments USING btree (lower(email)) WHERE (status = ANY (ARRAY['active'::text, 'paused'::text]));


--
-- Name: enrollments_lead; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrollments_lead ON public.enrollments USING btree (workspace_id, lead_id);


--
-- Name: mailbox_imap_state_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mailbox_imap_state_due ON public.mailbox_imap_state USING btree (next_poll_at);


--
-- Name: mailboxes_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mailboxes_workspace ON public.mailboxes USING btree (workspace_id, id);


--
-- Name: outbox_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_unpublished ON public.outbox USING btree (seq) WHERE (published_at IS NULL);


--
-- Name: sequences_list; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sequences_list ON public.sequences USING btree (workspace_id, id DESC);


--
-- Name: suppressions_once; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX suppressions_once ON public.suppressions USING btree (COALESCE(workspace_id, ''::text), type, value);


--
-- Name: suppressions_value; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX suppressions_value ON public.suppressions USING btree (type, value);


--
-- Name: enrollments enrollments_sequence_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrollments
    ADD CONSTRAINT enrollments_sequence_id_fkey FOREIGN KEY (sequence_id) REFERENCES public.sequences(id) ON DELETE CASCADE;


--
-- Name: mailbox_imap_state mailbox_imap_state_mailbox_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mailbox_imap_state
    ADD CONSTRAINT mailbox_imap_state_mailbox_id_fkey FOREIGN KEY (mailbox_id) REFERENCES public.mailboxes(id) ON DELETE CASCADE;


--
-- Name: sequence_steps sequence_steps_sequence_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sequence_steps
    ADD CONSTRAINT sequence_steps_sequence_id_fkey FOREIGN KEY (sequence_id) REFERENCES public.sequences(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict drFn732qlsIiXrTXEtPGMsCaLSJsbxfzSmhBFIQZYb0eUCTbeFioLCyYapIullH

