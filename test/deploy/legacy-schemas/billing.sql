--
-- PostgreSQL database dump
--

\restrict MYBjz9aglDloJPBgGj0oZrjMqbubnpFnAVqc23YhHGMJlbUYeFRGSzfn3BIFtdO

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
-- Name: billing_consume(text, text[], integer[], text[], text[], text[], jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.billing_consume(p_workspace text, p_refs text[], p_amounts integer[], p_reasons text[], p_plan_ids text[], p_pack_ids text[], p_plan_credits jsonb) RETURNS TABLE(out_status text, out_charged integer, out_plan integer, out_pack integer)
    LANGUAGE plpgsql
    AS $$
      DECLARE
        acc credit_accounts%ROWTYPE;
        monthly int;
        taken_refs text[] := '{}';
        taken_amounts int[] := '{}';
        e_ids text[] := '{}';
        e_amounts int[] := '{}';
        e_reasons text[] := '{}';
        e_refs text[] := '{}';
        e_pools text[] := '{}';
        o_status text[] := '{}';
        o_charged int[] := '{}';
        o_plan int[] := '{}';
        o_pack int[] := '{}';
        prior record;
        i int;
        seen int;
        from_plan int;
        from_pack int;
        part int;
        k int;
      BEGIN
        SELECT * INTO acc FROM credit_accounts WHERE workspace_id = p_workspace FOR UPDATE;
        IF NOT FOUND THEN
          RETURN QUERY SELECT 'no_account'::text, 0, 0, 0;
          RETURN;
        END IF;
        monthly := coalesce((p_plan_credits ->> acc.plan)::int, 0);
        -- by the refs alone, as CONSUME_PRIOR_SQL (migration 0003)
        FOR prior IN
          SELECT l.ref, -sum(l.amount)::int AS amount
            FROM (SELECT workspace_id, ref, amount FROM ledger_entries WHERE ref = ANY(p_refs) AND type = 'consume' OFFSET 0) l
           WHERE l.workspace_id = p_workspace GROUP BY l.ref
        LOOP
          taken_refs := array_append(taken_refs, prior.ref);
          taken_amounts := array_append(taken_amounts, prior.amount);
        END LOOP;
        FOR i IN 1 .. coalesce(array_length(p_refs, 1), 0) LOOP
          seen := array_position(taken_refs, p_refs[i]);
          IF seen IS NOT NULL THEN
            o_status := array_append(o_status, 'already'::text);
            o_charged := array_append(o_charged, taken_amounts[seen]);
          ELSIF acc.plan_balance + acc.pack_balance < p_amounts[i] THEN
            o_status := array_append(o_status, 'insufficient'::text);
            o_charged := array_append(o_charged, 0);
          ELSE
            from_plan := least(acc.plan_balance, p_amounts[i]);
            from_pack := p_amounts[i] - from_plan;
            -- an entry per pool it took from (plan, then pack), each with its own id
            FOR k IN 1 .. 2 LOOP
              part := CASE k WHEN 1 THEN from_plan ELSE from_pack END;
              CONTINUE WHEN part = 0;
              e_ids := array_append(e_ids, CASE k WHEN 1 THEN p_plan_ids[i] ELSE p_pack_ids[i] END);
              e_amounts := array_append(e_amounts, -part);
              e_reasons := array_append(e_reasons, p_reasons[i]);
              e_refs := array_append(e_refs, p_refs[i]);
              e_pools := array_append(e_pools, CASE k WHEN 1 THEN 'plan' ELSE 'pack' END);
            END LOOP;
            acc.plan_balance := acc.plan_balance - from_plan;
            acc.pack_balance := acc.pack_balance - from_pack;
            taken_refs := array_append(taken_refs, p_refs[i]);
            taken_amounts := array_append(taken_amounts, p_amounts[i]);
            IF monthly > 0 AND (acc.plan_balance + acc.pack_balance) * 10 < monthly
               AND NOT (acc.low_notified_for IS NOT NULL AND acc.low_notified_for = coalesce(acc.period_ends_at, 'epoch'::timestamptz)) THEN
              RETURN QUERY SELECT 'fallback'::text, 0, 0, 0;
              RETURN;
            END IF;
            o_status := array_append(o_status, 'applied'::text);
            o_charged := array_append(o_charged, p_amounts[i]);
          END IF;
          o_plan := array_append(o_plan, acc.plan_balance);
          o_pack := array_append(o_pack, acc.pack_balance);
        END LOOP;
        IF cardinality(e_ids) > 0 THEN
          INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool)
            SELECT t.id, p_workspace, 'consume', t.amount, t.reason, t.ref, t.pool
              FROM unnest(e_ids, e_amounts, e_reasons, e_refs, e_pools) AS t(id, amount, reason, ref, pool);
          UPDATE credit_accounts SET plan_balance = acc.plan_balance, pack_balance = acc.pack_balance WHERE workspace_id = p_workspace;
        END IF;
        RETURN QUERY SELECT * FROM unnest(o_status, o_charged, o_plan, o_pack);
      END
      $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: credit_accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credit_accounts (
    workspace_id text NOT NULL COLLATE pg_catalog."C",
    plan text NOT NULL,
    plan_balance integer DEFAULT 0 NOT NULL,
    pack_balance integer DEFAULT 0 NOT NULL,
    period_ends_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    low_notified_for timestamp with time zone,
    CONSTRAINT credit_accounts_pack_balance_check CHECK ((pack_balance >= 0)),
    CONSTRAINT credit_accounts_plan_balance_check CHECK ((plan_balance >= 0))
);


--
-- Name: ledger_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ledger_entries (
    id text NOT NULL COLLATE pg_catalog."C",
    workspace_id text NOT NULL,
    type text NOT NULL,
    amount integer NOT NULL,
    reason text NOT NULL,
    ref text,
    pool text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
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
-- Name: outbox seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN seq SET DEFAULT nextval('public.outbox_seq_seq'::regclass);


--
-- Data for Name: credit_accounts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.credit_accounts (workspace_id, plan, plan_balance, pack_balance, period_ends_at, created_at, low_notified_for) FROM stdin;
\.


--
-- Data for Name: ledger_entries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.ledger_entries (id, workspace_id, type, amount, reason, ref, pool, created_at) FROM stdin;
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
0000_event_bus	2026-11-26 00:18:37.850716+00
0001_credits	2026-11-26 00:18:37.890116+00
0002_credit_refs	2026-11-26 00:18:37.938567+00
0003_ledger_ref_first	2026-11-26 00:18:37.972347+00
0004_consume_function	2026-11-26 00:18:37.999864+00
\.


--
-- Name: outbox_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_seq_seq', 1, false);


--
-- Name: credit_accounts credit_accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_accounts
    ADD CONSTRAINT credit_accounts_pkey PRIMARY KEY (workspace_id);


--
-- Name: ledger_entries ledger_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id);


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
-- Name: credit_accounts_period; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_accounts_period ON public.credit_accounts USING btree (period_ends_at);


--
-- Name: ledger_entries_ref_first; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ledger_entries_ref_first ON public.ledger_entries USING btree (ref, workspace_id, type, pool) WHERE ((ref IS NOT NULL) AND (type = ANY (ARRAY['consume'::text, 'refund'::text])));


--
-- Name: ledger_entries_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ledger_entries_workspace ON public.ledger_entries USING btree (workspace_id, id);


--
-- Name: outbox_unpublished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_unpublished ON public.outbox USING btree (seq) WHERE (published_at IS NULL);


--
-- PostgreSQL database dump complete
--

\unrestrict MYBjz9aglDloJPBgGj0oZrjMqbubnpFnAVqc23YhHGMJlbUYeFRGSzfn3BIFtdO

