import { MigrationInterface, QueryRunner } from 'typeorm';
// the band indexes as 0009 made them: they move here unchanged (0009's constants, frozen with it)
import { BANDS, bandPredicate, LENSES } from './1764000009000-entities-terms-bands';

/** What a first-time search reads of an entity: the ranking, the lens, the numeric filters' columns and `terms`. */
const RANK_COLUMNS = 'id, lens, rank_score, num_min, num_max, terms';

/**
 * `entities_rank` filled from `entities` in rank order, and the statement triggers that keep it
 * (this migration's up, and the down of 1764000023000, which deletes it: frozen with this file).
 */
export async function createEntitiesRank(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`CREATE TABLE entities_rank (
      id text COLLATE "C" PRIMARY KEY, lens text NOT NULL, rank_score integer NOT NULL, num_min bigint, num_max bigint, terms tsvector NOT NULL)`);
  // in rank order: the rows of a lens's top bands share pages
  await queryRunner.query(`INSERT INTO entities_rank (${RANK_COLUMNS}) SELECT ${RANK_COLUMNS} FROM entities ORDER BY lens, rank_score DESC, id`);
  await queryRunner.query(`CREATE FUNCTION entities_rank_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO entities_rank (${RANK_COLUMNS}) SELECT ${RANK_COLUMNS} FROM entities_new;
      RETURN NULL;
    END $$`);
  // an upsert rewrites every row it meets; a row whose ranking columns did not change is left as it is
  await queryRunner.query(`CREATE FUNCTION entities_rank_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE entities_rank r SET lens = n.lens, rank_score = n.rank_score, num_min = n.num_min, num_max = n.num_max, terms = n.terms
        FROM entities_new n
       WHERE r.id = n.id AND (r.lens, r.rank_score, r.num_min, r.num_max, r.terms) IS DISTINCT FROM (n.lens, n.rank_score, n.num_min, n.num_max, n.terms);
      RETURN NULL;
    END $$`);
  await queryRunner.query(`CREATE FUNCTION entities_rank_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM entities_rank r USING entities_old o WHERE r.id = o.id;
      RETURN NULL;
    END $$`);
  await queryRunner.query(`CREATE FUNCTION entities_rank_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      TRUNCATE entities_rank;
      RETURN NULL;
    END $$`);
  await queryRunner.query(`CREATE TRIGGER entities_rank_insert AFTER INSERT ON entities REFERENCING NEW TABLE AS entities_new FOR EACH STATEMENT EXECUTE FUNCTION entities_rank_inserted()`);
  await queryRunner.query(`CREATE TRIGGER entities_rank_update AFTER UPDATE ON entities REFERENCING NEW TABLE AS entities_new FOR EACH STATEMENT EXECUTE FUNCTION entities_rank_updated()`);
  await queryRunner.query(`CREATE TRIGGER entities_rank_delete AFTER DELETE ON entities REFERENCING OLD TABLE AS entities_old FOR EACH STATEMENT EXECUTE FUNCTION entities_rank_deleted()`);
  await queryRunner.query(`CREATE TRIGGER entities_rank_truncate AFTER TRUNCATE ON entities FOR EACH STATEMENT EXECUTE FUNCTION entities_rank_truncated()`);
}

/** `entities_rank` and its triggers and functions dropped (this migration's down, 1764000023000's up). */
export async function dropEntitiesRank(queryRunner: QueryRunner): Promise<void> {
  for (const event of ['insert', 'update', 'delete', 'truncate']) await queryRunner.query(`DROP TRIGGER entities_rank_${event} ON entities`);
  for (const fn of ['inserted', 'updated', 'deleted', 'truncated']) await queryRunner.query(`DROP FUNCTION entities_rank_${fn}()`);
  await queryRunner.query('DROP TABLE entities_rank');
}

export class EntitiesRank1764000013000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // A first-time search finds its matches in the band GIN indexes (0009) and then reads, for each
    // match, the heap row the index points to, only for its id and rank. In `entities` that row is
    // the whole entity (details, sources), so a deep page's thousand matches are a thousand pages
    // of a table far larger than shared_buffers, most read from the OS cache. Here the band
    // indexes move to a narrow copy of what the ranking and the filters read, whose pages stay in
    // shared_buffers far longer. The copy is kept by statement
    // triggers on `entities` in the writing statement's own transaction: a snapshot sees both
    // tables alike, on the primary as on a streaming replica. `id` never changes (upsertMany
    // updates by ext_key), so an update is matched by id.
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    await createEntitiesRank(queryRunner);
    // the band indexes move, under the same names
    for (const lens of LENSES) {
      for (let i = 0; i <= BANDS.length; i++) {
        await queryRunner.query(`DROP INDEX entities_terms_${lens}_b${i}`);
        await queryRunner.query(`CREATE INDEX entities_terms_${lens}_b${i} ON entities_rank USING GIN (terms) WHERE ${bandPredicate(lens, i)}`);
      }
    }
    await queryRunner.query('ANALYZE entities_rank');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("SET LOCAL maintenance_work_mem = '256MB'");
    for (const lens of LENSES) {
      for (let i = 0; i <= BANDS.length; i++) {
        await queryRunner.query(`DROP INDEX entities_terms_${lens}_b${i}`);
        await queryRunner.query(`CREATE INDEX entities_terms_${lens}_b${i} ON entities USING GIN (terms) WHERE ${bandPredicate(lens, i)}`);
      }
    }
    await dropEntitiesRank(queryRunner);
  }
}
