import { MigrationInterface, QueryRunner } from 'typeorm';
import { rewriteLeaseTake } from './lease-take-definition';

/** search_lease_take's look-up of the refs charged before, as migration 1764000016000 wrote it. */
const BY_ARRAY = 'FOR known IN SELECT p.ref, p.refunded FROM credit_lease_pages p WHERE p.workspace_id = p_workspace AND p.ref = ANY(p_refs) LOOP';
/**
 * The same look-up, one primary-key read per ref: a LATERAL subquery with LIMIT 1 is not pulled
 * up into a join, so each read has both key columns as its index condition whatever the plan.
 */
const BY_KEY = 'FOR known IN SELECT r.ref, x.refunded FROM unnest(p_refs) AS r(ref) CROSS JOIN LATERAL (SELECT p.refunded FROM credit_lease_pages p WHERE p.workspace_id = p_workspace AND p.ref = r.ref LIMIT 1) x LOOP';

/**
 * search_lease_take reads the refs charged before by key (issue 37, item 2). Its generic plan
 * (migration 1764000021000), made on a connection's first takes while credit_lease_pages was
 * empty and analyzed (the bench's VACUUM (ANALYZE), autovacuum), read the table by the workspace
 * alone and filtered the refs: every take read every page its workspace had charged in the last
 * hour (KEEP_SETTLED_MS), 1 ms a take at 14,000 pages and 3.5 ms at 23,000 (pg_stat_statements,
 * docs/benchmarks.md 2026-11-30 17:38-18:40), and a served page 40 cost PostgreSQL twice a page 1.
 * Read ref by ref with both key columns, a take costs the same at any size of the table.
 */
export class LeaseTakeLookupByKey1764000022000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rewriteLeaseTake([[BY_ARRAY, BY_KEY]]));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rewriteLeaseTake([[BY_KEY, BY_ARRAY]]));
  }
}
