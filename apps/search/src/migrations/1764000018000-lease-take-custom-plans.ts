import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * search_lease_take (migration 1764000016000) planned for each call (issue 37, item 3): a plpgsql
 * function's statements keep a generic plan for the life of the connection, and the one made
 * while credit_lease_pages was small read it with a sequential scan, which every take of that
 * connection then repeated as the table grew (2.5 ms a take at 30,000 pages against 0.44 ms, and a
 * served page at 1 connection 2.5 ms slower with the leases; docs/benchmarks.md). A custom plan
 * sees the table's size at each call and reads it by its key.
 */
export class LeaseTakeCustomPlans1764000018000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER FUNCTION search_lease_take(text, text[]) SET plan_cache_mode = force_custom_plan');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER FUNCTION search_lease_take(text, text[]) RESET plan_cache_mode');
  }
}
