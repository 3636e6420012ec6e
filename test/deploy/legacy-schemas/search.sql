--
-- PostgreSQL database dump
--

\restrict LP3IpcDPC942TpHD4gdEfnykETLyHf0yZr2id1QKKp4I69blhgz0Xfbi52fU3uI

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
-- Name: entities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.entities (
    id text NOT NULL COLLATE pg_catalog."C",
    ext_key text NOT NULL COLLATE pg_catalog."C",
    lens text NOT NULL,
    name text NOT NULL,
    person_name text,
    first_name text,
    last_name text,
    title text,
    organization text,
    location text,
    country text,
    domain text,
    email text,
    phone text,
    details jsonb DEFAULT '{}'::jsonb NOT NULL,
    facets text[] DEFAULT '{}'::text[] NOT NULL,
    num_min bigint,
    num_max bigint,
    rank_score integer DEFAULT 0 NOT NULL,
    sources jsonb DEFAULT '[]'::jsonb NOT NULL,
    search_text text DEFAULT ''::text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    terms tsvector NOT NULL
);


--
-- Name: entities_generation; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.entities_generation
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: opportunity_profiles; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.opportunity_profiles (
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    profile jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
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
-- Name: pending_refunds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pending_refunds (
    ref text NOT NULL COLLATE pg_catalog."C",
    ctx jsonb NOT NULL,
    reason text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
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
-- Name: reveals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reveals (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    entity_id text NOT NULL COLLATE pg_catalog."C",
    status text NOT NULL,
    lead_id text,
    email text,
    email_status text,
    email_confidence integer,
    phone text,
    credits_charged integer NOT NULL,
    sources jsonb DEFAULT '[]'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    id text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: outbox seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN seq SET DEFAULT nextval('public.outbox_seq_seq'::regclass);


--
-- Data for Name: entities; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.entities (id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain, email, phone, details, facets, num_min, num_max, rank_score, sources, search_text, updated_at, terms) FROM stdin;
\.


--
-- Data for Name: opportunity_profiles; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.opportunity_profiles (workspace_id, profile, updated_at) FROM stdin;
\.


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.outbox (seq, id, type, envelope, created_at, published_at) FROM stdin;
\.


--
-- Data for Name: pending_refunds; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.pending_refunds (ref, ctx, reason, attempts, created_at) FROM stdin;
\.


--
-- Data for Name: processed_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.processed_events (consumer, event_id, processed_at) FROM stdin;
\.


--
-- Data for Name: reveals; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.reveals (id, workspace_id, entity_id, status, lead_id, email, email_status, email_confidence, phone, credits_charged, sources, created_at) FROM stdin;
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (id, applied_at) FROM stdin;
0000_event_bus	2026-11-26 00:18:32.691833+00
0001_entities	2026-11-26 00:18:32.764574+00
0002_pending_refunds	2026-11-26 00:18:32.790616+00
0003_entities_generation	2026-11-26 00:18:32.795795+00
0004_entities_terms	2026-11-26 00:18:32.8024+00
0005_entities_terms_written	2026-11-26 00:18:32.823452+00
0006_entities_terms_top	2026-11-26 00:18:32.831014+00
\.


--
-- Name: entities_generation; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.entities_generation', 1, false);


--
-- Name: outbox_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_seq_seq', 1, false);


--
-- Name: entities entities_ext_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.entities
    ADD CONSTRAINT entities_ext_key_key UNIQUE (ext_key);


--
-- Name: entities entities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.entities
    ADD CONSTRAINT entities_pkey PRIMARY KEY (id);


--
-- Name: opportunity_profiles opportunity_profiles_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.opportunity_profiles
    ADD CONSTRAINT opportunity_profiles_pkey PRIMARY KEY (workspace_id);


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
-- Name: pending_refunds pending_refunds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pending_refunds
    ADD CONSTRAINT pending_refunds_pkey PRIMARY KEY (ref);


--
-- Name: processed_events processed_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.processed_events
    ADD CONSTRAINT processed_events_pkey PRIMARY KEY (consumer, event_id);


--
-- Name: reveals reveals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reveals
    ADD CONSTRAINT reveals_pkey PRIMARY KEY (id);


--
-- Name: reveals reveals_workspace_id_entity_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reveals
    ADD CONSTRAINT reveals_workspace_id_entity_id_key UNIQUE (workspace_id, entity_id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (id);


--
-- Name: entities_lens_rank; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entities_lens_rank ON public.entities USING btree (lens, rank_score DESC, id);


--
-- Name: entities_terms; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entities_terms ON public.entities USING gin (terms);


--
-- Name: entities_terms_top_grants; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entities_terms_top_grants ON public.entities USING gin (strip(terms)) WHERE ((lens = 'grants'::text) AND (rank_score >= 975000));


--
-- Name: entities_terms_top_investors; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entities_terms_top_investors ON public.entities USING gin (strip(terms)) WHERE ((lens = 'investors'::text) AND (rank_score >= 975000));


--
-- Name: entities_terms_top_leads; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entities_terms_top_leads ON public.entities USING gin (strip(terms)) WHERE ((lens = 'leads'::text) AND (rank_score >= 975000));


--
-- Name: entities_terms_top_researchers; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX entities_terms_top_researchers ON public.entities USING gin (strip(terms)) WHERE ((lens = 'researchers'::text) AND (rank_score >= 975000));


--
-- Name: outbox_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_unpublished ON public.outbox USING btree (seq) WHERE (published_at IS NULL);


--
-- PostgreSQL database dump complete
--

\unrestrict LP3IpcDPC942TpHD4gdEfnykETLyHf0yZr2id1QKKp4I69blhgz0Xfbi52fU3uI

