import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreditLeases1764000016000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- A workspace's credit leases as search holds them (issue 37; billing's credit_leases has the
      -- reservation): 'pending' from before billing is asked until its answer, 'open' while pages
      -- are charged against it (used of size), 'closing' once no page may be (idle, expired, full,
      -- asked to settle, or its pending request given up), 'settled' once billing has the pages.
      -- Every replica charges against every open lease of the workspace; any replica settles.
      CREATE TABLE credit_leases (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        state text NOT NULL,
        pool text,
        size int NOT NULL DEFAULT 0,
        used int NOT NULL DEFAULT 0,
        ctx jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        settled_at timestamptz,
        CHECK (used >= 0 AND used <= size)
      );
      CREATE INDEX credit_leases_workspace ON credit_leases (workspace_id) WHERE state <> 'settled';
      CREATE INDEX credit_leases_unsettled ON credit_leases (state) WHERE state <> 'settled';
      -- Each page charged against a lease, written (committed) before the page is answered: the
      -- record a settle sends billing, whichever replica makes it. One row per ref (the request's),
      -- so a retry of a page is not charged again; a refunded page stays, refunded, so a retry of
      -- it is not done either (as billing's refunded_refs).
      CREATE TABLE credit_lease_pages (
        workspace_id text NOT NULL,
        ref text NOT NULL,
        lease_id text NOT NULL,
        taken_at timestamptz NOT NULL DEFAULT now(),
        refunded boolean NOT NULL DEFAULT false,
        PRIMARY KEY (workspace_id, ref)
      );
      CREATE INDEX credit_lease_pages_lease ON credit_lease_pages (lease_id);

      -- Charges a group of pages of one workspace (refs in arrival order) against its open leases,
      -- plan leases first, in one statement: one row per ref, in order: 'taken', 'already' (the ref
      -- was charged before, by this group or another replica), 'refunded' (the ref was charged and
      -- refunded: its work is not done again) or 'none' (no open lease has room: ask billing for one).
      -- The leases are locked for the statement (FOR UPDATE): a lease being closed takes no page.
      CREATE OR REPLACE FUNCTION search_lease_take(p_workspace text, p_refs text[])
        RETURNS TABLE (out_status text)
        LANGUAGE plpgsql AS $fn$
      DECLARE
        n int := coalesce(array_length(p_refs, 1), 0);
        st text[] := array_fill(NULL::text, ARRAY[n]);
        known record;
        l_ids text[];
        l_room int[];
        j int := 1;
        i int;
        new_refs text[] := '{}';
        new_leases text[] := '{}';
        new_pos int[] := '{}';
        got text[];
      BEGIN
        IF n = 0 THEN
          RETURN;
        END IF;
        FOR known IN SELECT p.ref, p.refunded FROM credit_lease_pages p WHERE p.workspace_id = p_workspace AND p.ref = ANY(p_refs) LOOP
          FOR i IN 1 .. n LOOP
            IF p_refs[i] = known.ref THEN
              st[i] := CASE WHEN known.refunded THEN 'refunded' ELSE 'already' END;
            END IF;
          END LOOP;
        END LOOP;
        SELECT coalesce(array_agg(l.id ORDER BY l.pool DESC, l.id), '{}'), coalesce(array_agg(l.size - l.used ORDER BY l.pool DESC, l.id), '{}')
          INTO l_ids, l_room
          FROM (SELECT c.id, c.pool, c.size, c.used FROM credit_leases c
                 WHERE c.workspace_id = p_workspace AND c.state = 'open' AND c.used < c.size AND c.expires_at > now() ORDER BY c.id FOR UPDATE) l;
        FOR i IN 1 .. n LOOP
          CONTINUE WHEN st[i] IS NOT NULL;
          IF array_position(new_refs, p_refs[i]) IS NOT NULL THEN
            st[i] := 'already';
            CONTINUE;
          END IF;
          WHILE j <= cardinality(l_ids) AND l_room[j] = 0 LOOP
            j := j + 1;
          END LOOP;
          IF j > cardinality(l_ids) THEN
            st[i] := 'none';
            CONTINUE;
          END IF;
          l_room[j] := l_room[j] - 1;
          new_refs := array_append(new_refs, p_refs[i]);
          new_leases := array_append(new_leases, l_ids[j]);
          new_pos := array_append(new_pos, i);
          st[i] := 'taken';
        END LOOP;
        IF cardinality(new_refs) > 0 THEN
          WITH ins AS (
            INSERT INTO credit_lease_pages (workspace_id, ref, lease_id)
              SELECT p_workspace, t.r, t.l FROM unnest(new_refs, new_leases) AS t(r, l)
              ON CONFLICT DO NOTHING RETURNING ref, lease_id
          ), upd AS (
            UPDATE credit_leases c SET used = c.used + g.k, last_used_at = now()
              FROM (SELECT ins.lease_id, count(*)::int AS k FROM ins GROUP BY ins.lease_id) g WHERE c.id = g.lease_id
          )
          SELECT coalesce(array_agg(ins.ref), '{}') INTO got FROM ins;
          -- a ref another replica charged meanwhile (its row came first): already charged
          FOR i IN 1 .. cardinality(new_refs) LOOP
            IF array_position(got, new_refs[i]) IS NULL THEN
              st[new_pos[i]] := 'already';
            END IF;
          END LOOP;
        END IF;
        RETURN QUERY SELECT u.s FROM unnest(st) WITH ORDINALITY AS u(s, k) ORDER BY u.k;
      END
      $fn$;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP FUNCTION search_lease_take(text, text[]);
      DROP TABLE credit_lease_pages;
      DROP TABLE credit_leases;
    `);
  }
}
