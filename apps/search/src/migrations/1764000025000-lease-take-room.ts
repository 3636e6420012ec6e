import { MigrationInterface, QueryRunner } from 'typeorm';
import { rewriteLeaseTake } from './lease-take-definition';

const RETURNS_OLD = 'RETURNS TABLE(out_status text)';
const RETURNS_NEW = 'RETURNS TABLE(out_status text, out_room integer)';
const RESULT_OLD = 'RETURN QUERY SELECT u.s FROM unnest(st) WITH ORDINALITY AS u(s, k) ORDER BY u.k;';
/** The room left in the open leases the take locked, after its charges: the same on every row. */
const RESULT_NEW = 'RETURN QUERY SELECT u.s, (SELECT coalesce(sum(x), 0)::int FROM unnest(l_room) AS x) FROM unnest(st) WITH ORDINALITY AS u(s, k) ORDER BY u.k;';

/**
 * search_lease_take also answers the room its workspace's open leases have left after the take
 * (`out_room`), so that search asks billing for the next lease while the current one still has
 * room (LeasesService: ahead of need), not once a page has found none: at a lease's end a served
 * page used to wait for the lease's request to billing and its two writes here (docs/benchmarks.md,
 * 2026-12-01 19:28). Its result type changes, which CREATE OR REPLACE refuses: the function is
 * dropped and made again in the migration's transaction (a take of another connection waits for
 * the commit, then calls the new one; a statement prepared by an older replica,
 * `SELECT out_status FROM search_lease_take(...)`, is planned again and reads the same).
 */
export class LeaseTakeRoom1764000025000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rewriteLeaseTake([[RETURNS_OLD, RETURNS_NEW], [RESULT_OLD, RESULT_NEW]], { dropFirst: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rewriteLeaseTake([[RETURNS_NEW, RETURNS_OLD], [RESULT_NEW, RESULT_OLD]], { dropFirst: true }));
  }
}
