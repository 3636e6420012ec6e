import { Migration } from '@app/platform/db';
import { EVENT_BUS_MIGRATION, OUTBOX_TRACE_MIGRATION } from '@app/platform/events';

/** Applied in order at boot; an applied migration is never edited, only followed by a new one. */
export const MIGRATIONS: Migration[] = [
  EVENT_BUS_MIGRATION,
  {
    id: '0001_entities',
    up: `
      CREATE TABLE entities (
        id text COLLATE "C" PRIMARY KEY,
        -- provider:record id (or seed:n): the same source record always lands on the same entity
        ext_key text COLLATE "C" NOT NULL UNIQUE,
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
        details jsonb NOT NULL DEFAULT '{}',
        -- filter values as 'key:value' (lower case), matched with the GIN index
        facets text[] NOT NULL DEFAULT '{}',
        -- numeric filters: investors check size, researchers works count, grants deadline (epoch days)
        num_min bigint,
        num_max bigint,
        -- static quality; hits are ordered by it so a page never ranks every match
        rank_score int NOT NULL DEFAULT 0,
        sources jsonb NOT NULL DEFAULT '[]',
        search_text text NOT NULL DEFAULT '',
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX entities_tsv ON entities USING GIN (tsv);
      CREATE INDEX entities_facets ON entities USING GIN (facets);
      CREATE INDEX entities_lens_rank ON entities (lens, rank_score DESC, id);
      CREATE TABLE reveals (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text COLLATE "C" NOT NULL,
        entity_id text COLLATE "C" NOT NULL,
        status text NOT NULL,
        lead_id text,
        email text,
        email_status text,
        email_confidence int,
        phone text,
        credits_charged int NOT NULL,
        sources jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, entity_id)
      );
      CREATE TABLE opportunity_profiles (
        workspace_id text COLLATE "C" PRIMARY KEY,
        profile jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    id: '0002_pending_refunds',
    up: `
      -- refunds billing could not take when they were due; retried until billing answers (refunds are idempotent by ref)
      CREATE TABLE pending_refunds (
        ref text COLLATE "C" PRIMARY KEY,
        ctx jsonb NOT NULL,
        reason text NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    id: '0003_entities_generation',
    up: `
      -- bumped after every write to entities commits: search pages keep a query's ranked ids per
      -- process, stamped with the generation they were read at, and read them again when it moved
      CREATE SEQUENCE entities_generation;
    `,
  },
  {
    id: '0004_entities_terms',
    up: `
      -- everything a search ANDs, in one tsvector with one GIN index, so that a query is one GIN
      -- scan whose keys skip through each other's posting lists (instead of a bitmap of every
      -- entry of each of three indexes ANDed afterwards):
      --   the words of search_text (lower case, as in tsv; no positions: no phrase is ever asked);
      --   'F:' || facet for every filter value (facets stays the source; upper case never comes
      --     out of the 'simple' configuration, so no word of a text can look like a token);
      --   the static rank band of the entity in its lens, 'B:<lens>:<rank_score >> 13>' (8,192 rank
      --     points wide), so that a first page reads only the matches of the lens's best bands
      --     within the same scan (EntitiesRepository.rank).
      -- Facet values longer than a tsvector lexeme may be (2 KB) are left out (the API's filter
      -- values are at most 100 characters, so no filter could ask for one).
      CREATE FUNCTION entity_terms(search_text text, lens text, facets text[], rank_score int) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN strip(to_tsvector('simple', search_text)) || array_to_tsvector(
          ARRAY['B:' || lens || ':' || (rank_score >> 13)]
          || ARRAY(SELECT 'F:' || f FROM unnest(facets) AS f WHERE f IS NOT NULL AND octet_length(f) < 2000));
      -- generated: every writer (seed, ingestion connectors, the API) fills it, and the rows already
      -- there are backfilled by this statement (it rewrites the table)
      ALTER TABLE entities ADD COLUMN terms tsvector GENERATED ALWAYS AS (entity_terms(search_text, lens, facets, rank_score)) STORED;
      SET LOCAL maintenance_work_mem = '256MB';
      CREATE INDEX entities_terms ON entities USING GIN (terms);
      -- replaced by entities_terms: no search reads them any more, and every insert paid for them
      DROP INDEX entities_tsv;
      DROP INDEX entities_facets;
    `,
  },
  {
    id: '0005_entities_terms_written',
    up: `
      -- tsv (the words of search_text, with positions) was only read through entities_tsv, which
      -- 0004 replaced: terms holds the same words. No rewrite: the rows already there keep the
      -- dropped column's bytes until they are next written (or VACUUM FULL).
      ALTER TABLE entities DROP COLUMN tsv;
      -- terms keeps its values but is written by EntitiesRepository.upsertMany (the one writer of
      -- entities) from now on, as the same expression inline in its INSERT: to_tsvector ran twice
      -- per insert (tsv and terms) and entity_terms went through the SQL-function executor, which
      -- cost a seed of 1M entities 10-20% more PostgreSQL CPU than before 0004. NOT NULL: a
      -- writer that left it out would fail rather than hide its rows from every search.
      ALTER TABLE entities ALTER COLUMN terms DROP EXPRESSION;
      ALTER TABLE entities ALTER COLUMN terms SET NOT NULL;
      DROP FUNCTION entity_terms(text, text, text[], int);
    `,
  },
  {
    id: '0006_entities_terms_top',
    up: `
      -- the top group of each lens (TOP_GROUP_MIN_RANK in entities/entity.ts: keep the two numbers
      -- equal, a different one there makes the planner ignore these indexes): a first page is read
      -- from the lens's matches ranked at least this. Each index's posting lists hold ~2.5% of one
      -- lens, so a query's words and facets are intersected over those only, where the band tokens
      -- of 0004 ('B:<lens>:<band>', no longer written) still had the whole index's lists decoded.
      -- On strip(terms) (terms has no positions: the same value) so that only these indexes can
      -- answer the top group's read: on terms itself the planner took entities_terms ANDed with
      -- entities_lens_rank for a frequent word (10-34 ms at 1M entities instead of 0.2 ms).
      SET LOCAL maintenance_work_mem = '256MB';
      CREATE INDEX entities_terms_top_leads ON entities USING GIN (strip(terms)) WHERE lens = 'leads' AND rank_score >= 975000;
      CREATE INDEX entities_terms_top_investors ON entities USING GIN (strip(terms)) WHERE lens = 'investors' AND rank_score >= 975000;
      CREATE INDEX entities_terms_top_researchers ON entities USING GIN (strip(terms)) WHERE lens = 'researchers' AND rank_score >= 975000;
      CREATE INDEX entities_terms_top_grants ON entities USING GIN (strip(terms)) WHERE lens = 'grants' AND rank_score >= 975000;
    `,
  },
  {
    id: '0007_entities_organizations',
    up: `
      -- the organisation records (ORGANIZATION_RECORD_SQL in entities.repository.ts: keep the
      -- predicates equal) by domain and by name, for the company a reveal or a new lead links to
      CREATE INDEX entities_org_domain ON entities (domain) WHERE (ext_key LIKE 'opencorporates:%' OR ext_key ~ '^sec_edgar:[^:]+$');
      CREATE INDEX entities_org_name ON entities (lower(organization)) WHERE (ext_key LIKE 'opencorporates:%' OR ext_key ~ '^sec_edgar:[^:]+$');
    `,
  },
  OUTBOX_TRACE_MIGRATION,
];
