import { Client } from 'pg';
import { ConfigError } from '@app/platform/config';
import { MIGRATION_LOCK } from '@app/platform/migrations';
// the band indexes as migrations 0009 and 0013 made them (their frozen constants)
import { BANDS, bandPredicate, LENSES } from './1764000009000-entities-terms-bands';

/**
 * Where a first-time query finds its ranked ids (SEARCH_INDEX; docs/decisions.md, "Search index:
 * rank bands or RUM"): `bands`, a GIN index per lens and rank band (migrations 0009, 0013), or
 * `memory`, an inverted index in each search process (MemorySearchIndex), over the same layout in
 * PostgreSQL. `rum`, a RUM index per lens, was measured against the bands, lost on every measure
 * and was removed (issue 37, item 4).
 */
export type IndexLayout = 'bands' | 'memory';

/**
 * SEARCH_INDEX: `memory` (also when unset: an inverted index in each search process,
 * MemorySearchIndex; PostgreSQL keeps the bands' layout, so that a switch back is a restart) or
 * `bands`; the default by measurement (docs/decisions.md, "Search index chosen by measurement").
 * `rum` is refused with what to do instead: a deployment that still asks for it must not start
 * as if it had asked for something else.
 */
export function searchIndexOf(raw: string | undefined): IndexLayout {
  if (raw === undefined || raw === '' || raw === 'memory') return 'memory';
  if (raw === 'bands') return 'bands';
  if (raw === 'rum') {
    throw new ConfigError('SEARCH_INDEX=rum was removed (it lost to the rank bands on every measure, docs/decisions.md): ' +
      'unset SEARCH_INDEX (or set bands); search then drops its RUM indexes and builds the bands at its next start or `npm run migrate -- search`');
  }
  throw new ConfigError(`SEARCH_INDEX must be bands or memory, got "${raw}"`);
}

/**
 * The indexes of the removed `rum` layout (one per lens), which a database that ran it still has:
 * dropped whenever the layout is applied. They go by these names, whatever their access method.
 */
const REMOVED_RUM_INDEXES: readonly string[] = LENSES.map((lens) => `entities_rum_${lens}`);
const bandIndexName = (lens: string, band: number): string => `entities_terms_${lens}_b${band}`;

/** The band indexes on entities_rank, by name, with their definitions. */
function bandIndexes(): Map<string, string> {
  const wanted = new Map<string, string>();
  for (const lens of LENSES) {
    for (let i = 0; i <= BANDS.length; i++) wanted.set(bandIndexName(lens, i), `CREATE INDEX ${bandIndexName(lens, i)} ON entities_rank USING GIN (terms) WHERE ${bandPredicate(lens, i)}`);
  }
  return wanted;
}

/**
 * Brings the search database's ranking indexes to the bands, after its migrations, under either
 * SEARCH_INDEX (`memory` keeps the bands' layout in PostgreSQL): the missing band
 * indexes built, and the RUM indexes of the removed `rum` layout dropped (a database that ran
 * SEARCH_INDEX=rum had its bands dropped and a RUM index per lens built), in one transaction, under
 * the migration lock, so replicas starting together and the migrate Job do it once. Nothing to do,
 * the usual case, costs one catalogue read. Building the bands on a populated database takes
 * minutes at 10M entities: run `npm run migrate -- search` before the services. The rum extension
 * itself is left to the database's owner (a superuser created it: docs/runbooks.md says when to
 * drop it); a server without it runs this layout.
 */
export async function applyIndexLayout(databaseUrl: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const wanted = bandIndexes();
    const present = async () => new Set((await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass('entities_rank')`)).rows.map((r) => r.name));
    const settled = (names: Set<string>) => [...wanted.keys()].every((n) => names.has(n)) && REMOVED_RUM_INDEXES.every((n) => !names.has(n));
    if (settled(await present())) return [];
    const done: string[] = [];
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query("SET LOCAL maintenance_work_mem = '256MB'");
      const names = await present();
      for (const [name, sql] of wanted) {
        if (!names.has(name)) {
          await client.query(sql);
          done.push(`created ${name}`);
        }
      }
      for (const name of REMOVED_RUM_INDEXES) {
        if (names.has(name)) {
          await client.query(`DROP INDEX ${name}`).catch((err: Error) => {
            throw new Error(`dropping ${name}, an index of the removed SEARCH_INDEX=rum, failed (${err.message}): ` +
              'run search (or `npm run migrate -- search`) once on a server that still has the rum extension (docs/runbooks.md)');
          });
          done.push(`dropped ${name}`);
        }
      }
      if (done.length > 0) await client.query('ANALYZE entities_rank');
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    return done;
  } finally {
    await client.end();
  }
}
