import { Client } from 'pg';
import { ConfigError } from '@app/platform/config';
import { MIGRATION_LOCK } from '@app/platform/migrations';
// the band indexes as migrations 0009 and 0013 made them (their frozen constants)
import { BANDS, bandPredicate, LENSES } from './1764000009000-entities-terms-bands';

/**
 * Where a first-time query finds its ranked ids (SEARCH_INDEX; docs/decisions.md, "Search index:
 * rank bands or RUM"): `bands`, a GIN index per lens and rank band (migrations 0009, 0013), or
 * `rum`, one RUM index per lens over `terms` with `rank_score` attached, which hands a query's
 * matches on in rank order (PostgreSQL's `rum` extension, Debian's postgresql-15-rum).
 */
export type IndexLayout = 'bands' | 'rum' | 'memory';

/**
 * SEARCH_INDEX: `bands` (also when unset), `rum`, or `memory` (an inverted index in each search
 * process, MemorySearchIndex; PostgreSQL keeps the bands' layout, so that a switch back is a restart).
 */
export function searchIndexOf(raw: string | undefined): IndexLayout {
  if (raw === undefined || raw === '' || raw === 'bands') return 'bands';
  if (raw === 'rum') return 'rum';
  if (raw === 'memory') return 'memory';
  throw new ConfigError(`SEARCH_INDEX must be bands, rum or memory, got "${raw}"`);
}

/** The RUM index of a lens (SEARCH_INDEX=rum). */
export const rumIndexName = (lens: string): string => `entities_rum_${lens}`;
const bandIndexName = (lens: string, band: number): string => `entities_terms_${lens}_b${band}`;

/** The indexes of a layout on entities_rank, by name, with their definitions. */
function indexesOf(layout: IndexLayout): Map<string, string> {
  const wanted = new Map<string, string>();
  for (const lens of LENSES) {
    if (layout === 'rum') {
      wanted.set(rumIndexName(lens), `CREATE INDEX ${rumIndexName(lens)} ON entities_rank USING rum (terms rum_tsvector_addon_ops, rank_score)
        WITH (attach = 'rank_score', to = 'terms') WHERE lens = '${lens}'`);
    } else {
      for (let i = 0; i <= BANDS.length; i++) wanted.set(bandIndexName(lens, i), `CREATE INDEX ${bandIndexName(lens, i)} ON entities_rank USING GIN (terms) WHERE ${bandPredicate(lens, i)}`);
    }
  }
  return wanted;
}

/**
 * Brings the search database's ranking indexes to `layout`, after its migrations: the indexes of
 * the other layout are dropped, the missing ones of this layout built (in one transaction, under
 * the migration lock, so replicas starting together and the migrate Job do it once). Nothing to
 * do, the usual case, costs one catalogue read. Switching a populated database builds the new
 * indexes there and then (minutes at 10M entities): run `npm run migrate -- search` with the new
 * SEARCH_INDEX before the services that use it. `rum` needs the `rum` extension on the server and
 * creates it when missing (it fails with the reason when the server has none); `bands` never
 * needs it, so a server without it runs the default layout.
 */
export async function applyIndexLayout(databaseUrl: string, layout: IndexLayout): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const wanted = indexesOf(layout);
    const unwanted = indexesOf(layout === 'rum' ? 'bands' : 'rum');
    const present = async () => new Set((await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass('entities_rank')`)).rows.map((r) => r.name));
    const settled = (names: Set<string>) => [...wanted.keys()].every((n) => names.has(n)) && [...unwanted.keys()].every((n) => !names.has(n));
    if (settled(await present())) return [];
    const done: string[] = [];
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query("SET LOCAL maintenance_work_mem = '256MB'");
      const names = await present();
      if (layout === 'rum') {
        const available = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'rum'`);
        if (available.rowCount === 0) {
          throw new Error('SEARCH_INDEX=rum needs PostgreSQL\'s rum extension on the database server (Debian: postgresql-15-rum; the project\'s PostgreSQL images have it)');
        }
        const installed = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'rum'`);
        // not a trusted extension: search's own role may not create it (the k8s examples create it as the superuser)
        if (installed.rowCount === 0) {
          await client.query('CREATE EXTENSION rum').catch((err: Error) => {
            throw new Error(`SEARCH_INDEX=rum: CREATE EXTENSION rum in search's database failed (${err.message}); a superuser creates it once`);
          });
        }
      }
      for (const [name, sql] of wanted) {
        if (!names.has(name)) {
          await client.query(sql);
          done.push(`created ${name}`);
        }
      }
      for (const name of unwanted.keys()) {
        if (names.has(name)) {
          await client.query(`DROP INDEX ${name}`);
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
