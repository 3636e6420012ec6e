--
-- PostgreSQL database dump
--

\restrict 11eoNoePltjg5KzQ3n6MbRJNscX1KTkMA2zsnt0FdOmLx9FWB8RioECZ9kSW7DV

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
-- Name: webhook_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_attempts (
    delivery_id text NOT NULL COLLATE pg_catalog."C",
    endpoint_id text NOT NULL COLLATE pg_catalog."C",
    attempt integer NOT NULL,
    attempted_at timestamp with time zone DEFAULT now() NOT NULL,
    status_code integer,
    outcome text NOT NULL,
    error text,
    latency_ms integer NOT NULL
);


--
-- Name: webhook_create_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_create_keys (
    workspace_id text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    endpoint_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id text NOT NULL COLLATE pg_catalog."C",
    endpoint_id text NOT NULL COLLATE pg_catalog."C",
    event_id text NOT NULL COLLATE pg_catalog."C",
    event_type text NOT NULL,
    event_created timestamp with time zone NOT NULL,
    body text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_until timestamp with time zone,
    claim_token text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text, 'dropped'::text])))
);


--
-- Name: webhook_endpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_endpoints (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL,
    livemode boolean NOT NULL,
    url text NOT NULL,
    description text,
    events text[] NOT NULL,
    api_version text NOT NULL,
    secret_enc text NOT NULL,
    status text DEFAULT 'enabled'::text NOT NULL,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    disabled_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    CONSTRAINT webhook_endpoints_status_check CHECK ((status = ANY (ARRAY['enabled'::text, 'disabled'::text])))
);


--
-- Name: webhook_test_clock; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_test_clock (
    id integer NOT NULL,
    offset_ms bigint NOT NULL,
    CONSTRAINT webhook_test_clock_id_check CHECK ((id = 1))
);


--
-- Name: outbox seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN seq SET DEFAULT nextval('public.outbox_seq_seq'::regclass);


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
0000_event_bus	2026-11-26 00:18:44.833299+00
0001_webhooks	2026-11-26 00:18:44.87575+00
\.


--
-- Data for Name: webhook_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_attempts (delivery_id, endpoint_id, attempt, attempted_at, status_code, outcome, error, latency_ms) FROM stdin;
\.


--
-- Data for Name: webhook_create_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_create_keys (workspace_id, key, request_hash, endpoint_id, created_at) FROM stdin;
\.


--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_deliveries (id, endpoint_id, event_id, event_type, event_created, body, status, attempts, next_attempt_at, locked_until, claim_token, created_at, completed_at) FROM stdin;
\.


--
-- Data for Name: webhook_endpoints; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_endpoints (id, workspace_id, livemode, url, description, events, api_version, secret_enc, status, consecutive_failures, disabled_at, created_at) FROM stdin;
\.


--
-- Data for Name: webhook_test_clock; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_test_clock (id, offset_ms) FROM stdin;
\.


--
-- Name: outbox_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_seq_seq', 1, false);


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
-- Name: webhook_attempts webhook_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (delivery_id, attempt);


--
-- Name: webhook_create_keys webhook_create_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_create_keys
    ADD CONSTRAINT webhook_create_keys_pkey PRIMARY KEY (workspace_id, key);


--
-- Name: webhook_deliveries webhook_deliveries_event_id_endpoint_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_endpoint_id_key UNIQUE (event_id, endpoint_id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);


--
-- Name: webhook_test_clock webhook_test_clock_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_test_clock
    ADD CONSTRAINT webhook_test_clock_pkey PRIMARY KEY (id);


--
-- Name: outbox_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_unpublished ON public.outbox USING btree (seq) WHERE (published_at IS NULL);


--
-- Name: webhook_attempts_endpoint; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_attempts_endpoint ON public.webhook_attempts USING btree (endpoint_id, attempted_at DESC);


--
-- Name: webhook_deliveries_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);


--
-- Name: webhook_deliveries_endpoint; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_endpoint ON public.webhook_deliveries USING btree (endpoint_id, created_at DESC);


--
-- Name: webhook_endpoints_list; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_endpoints_list ON public.webhook_endpoints USING btree (workspace_id, id DESC);


--
-- Name: webhook_attempts webhook_attempts_delivery_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON DELETE CASCADE;


--
-- Name: webhook_deliveries webhook_deliveries_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict 11eoNoePltjg5KzQ3n6MbRJNscX1KTkMA2zsnt0FdOmLx9FWB8RioECZ9kSW7DV

