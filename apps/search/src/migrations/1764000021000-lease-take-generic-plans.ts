import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * search_lease_take's statements planned once per connection again, and never by a sequential
 * scan (issue 37, item 2). Migration 1764000018000 made PostgreSQL plan them at every call
 * (`force_custom_plan`), because a generic plan made while credit_lease_pages was small read it
 * by a sequential scan, which every take of that connection then repeated as the table grew. That
 * planning was about two fifths of a take's time: 1.3 of 3.4 s over 3,341 takes of a served-page
 * load (pg_stat_statements, docs/benchmarks.md 2026-11-30 14:40). With `enable_seqscan = off` in
 * the function alone, a generic plan made on an empty table reads every table of the take by one
 * of its indexes, as a custom plan on a grown table does; `force_generic_plan` keeps that first plan.
 */
export class LeaseTakeGenericPlans1764000021000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER FUNCTION search_lease_take(text, text[]) SET plan_cache_mode = force_generic_plan');
    await queryRunner.query('ALTER FUNCTION search_lease_take(text, text[]) SET enable_seqscan = off');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER FUNCTION search_lease_take(text, text[]) RESET enable_seqscan');
    await queryRunner.query('ALTER FUNCTION search_lease_take(text, text[]) SET plan_cache_mode = force_custom_plan');
  }
}
