import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * billing_consume of migration 0007, taking only what no open lease reserves: a consume is paid
 * from plan_balance - plan_leased first, then pack_balance - pack_leased.
 */
const CONSUME_SPARE_SQL = `
      CREATE OR REPLACE FUNCTION billing_consume(p_workspace text, p_refs text[], p_amounts int[], p_reasons text[], p_plan_ids text[], p_pack_ids text[], p_plan_credits jsonb)
        RETURNS TABLE (out_status text, out_charged int, out_plan int, out_pack int)
        LANGUAGE plpgsql AS $fn$
      DECLARE
        acc credit_accounts%ROWTYPE;
        monthly int;
        closed_refs text[];
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
        -- read under the account's row lock, which every refund takes too
        SELECT coalesce(array_agg(r.ref), '{}') INTO closed_refs FROM refunded_refs r WHERE r.ref = ANY(p_refs) AND r.workspace_id = p_workspace;
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
          IF array_position(closed_refs, p_refs[i]) IS NOT NULL THEN
            o_status := array_append(o_status, 'refunded'::text);
            o_charged := array_append(o_charged, 0);
          ELSIF seen IS NOT NULL THEN
            o_status := array_append(o_status, 'already'::text);
            o_charged := array_append(o_charged, taken_amounts[seen]);
          ELSIF (acc.plan_balance - acc.plan_leased) + (acc.pack_balance - acc.pack_leased) < p_amounts[i] THEN
            o_status := array_append(o_status, 'insufficient'::text);
            o_charged := array_append(o_charged, 0);
          ELSE
            from_plan := least(acc.plan_balance - acc.plan_leased, p_amounts[i]);
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
      $fn$;
`;

export class CreditLeases1764000008000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      -- Credit leases (issue 37): a block of a workspace's credits reserved for search, which
      -- charges its pages against it in its own database and settles it here (CreditsService.lease,
      -- settleLease). The balances stay the ledger's sums; what open leases reserve of them is in
      -- plan_leased and pack_leased, so what a consume or a new lease may take is the balance less
      -- the leased part.
      ALTER TABLE credit_accounts
        ADD COLUMN plan_leased int NOT NULL DEFAULT 0,
        ADD COLUMN pack_leased int NOT NULL DEFAULT 0,
        ADD CONSTRAINT credit_accounts_leased CHECK (plan_leased >= 0 AND pack_leased >= 0 AND plan_leased <= plan_balance AND pack_leased <= pack_balance);
      -- One row per lease search asked for (its id is search's): open while it reserves 'amount'
      -- credits of one pool; settled once search said which pages it charged (used), the rest
      -- returned, or expired when the plan period it was taken in has ended. A settle of an id
      -- never leased leaves a settled row of 0: a lease request arriving after it takes nothing.
      CREATE TABLE credit_leases (
        id text COLLATE "C" PRIMARY KEY,
        workspace_id text NOT NULL,
        pool text NOT NULL,
        amount int NOT NULL CHECK (amount >= 0),
        period_ends_at timestamptz,
        state text NOT NULL,
        used int,
        returned int,
        expired int,
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz
      );
      CREATE INDEX credit_leases_open ON credit_leases (workspace_id) WHERE state = 'open';
    `);
    await queryRunner.query(CONSUME_SPARE_SQL);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // billing_consume as migration 0007 made it: the same text with the balances whole
    await queryRunner.query(CONSUME_SPARE_SQL
      .replace('(acc.plan_balance - acc.plan_leased) + (acc.pack_balance - acc.pack_leased) < p_amounts[i]', 'acc.plan_balance + acc.pack_balance < p_amounts[i]')
      .replace('least(acc.plan_balance - acc.plan_leased, p_amounts[i])', 'least(acc.plan_balance, p_amounts[i])'));
    await queryRunner.query(`
      DROP TABLE credit_leases;
      ALTER TABLE credit_accounts DROP CONSTRAINT credit_accounts_leased, DROP COLUMN plan_leased, DROP COLUMN pack_leased;
    `);
  }
}
