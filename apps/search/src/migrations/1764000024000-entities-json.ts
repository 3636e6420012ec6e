import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `details` and `sources` of `entities` as `json`, where they were `jsonb` (issue 37, item 3;
 * docs/decisions.md, "`details` and `sources` are json"). Nothing queries inside them: search
 * hands their text to pages as it is and parses it in JavaScript where it reads a key. jsonb's
 * input parsed every written row's JSON into its binary form (`jsonb_recv`, a fifth of
 * PostgreSQL's CPU in a seed) and its output wrote it back as text for every row a page reads;
 * json's input only checks the text and its output is the text.
 *
 * The type change rewrites the table and rebuilds its indexes under an exclusive lock: page reads
 * and writes of `entities` wait until it ends (docs/runbooks.md, "details and sources as json":
 * the time it takes per million rows). A row's text keeps jsonb's form (`"key": value`, keys in
 * jsonb's order); rows written after it carry JSON.stringify's.
 */
export class EntitiesJson1764000024000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    await queryRunner.query(`ALTER TABLE entities
      ALTER COLUMN details DROP DEFAULT, ALTER COLUMN details TYPE json USING details::json, ALTER COLUMN details SET DEFAULT '{}'::json,
      ALTER COLUMN sources DROP DEFAULT, ALTER COLUMN sources TYPE json USING sources::json, ALTER COLUMN sources SET DEFAULT '[]'::json`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    await queryRunner.query(`ALTER TABLE entities
      ALTER COLUMN details DROP DEFAULT, ALTER COLUMN details TYPE jsonb USING details::jsonb, ALTER COLUMN details SET DEFAULT '{}'::jsonb,
      ALTER COLUMN sources DROP DEFAULT, ALTER COLUMN sources TYPE jsonb USING sources::jsonb, ALTER COLUMN sources SET DEFAULT '[]'::jsonb`);
  }
}
