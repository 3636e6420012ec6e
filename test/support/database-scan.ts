import { Client } from 'pg';
import { onPgServer, PG_SERVER_URL, TestMesh } from '../harness';

/** Where a value was found: `<database>.<schema>.<table>`, with the form it was found in. */
export interface Sighting {
  table: string;
  form: string;
}

/**
 * The forms a signing secret (`whsec_` + base64url of 32 bytes) can rest in without any key: as
 * text, without its prefix, as its bytes (a `bytea` of the text or of the random bytes, which a
 * row's text shows in hex) and in standard base64.
 */
export function plainFormsOfSecret(secret: string): Record<string, string> {
  const body = secret.replace(/^whsec_/, '');
  const raw = Buffer.from(body, 'base64url');
  return {
    text: secret,
    'text without prefix': body,
    'bytes of the text (hex)': Buffer.from(secret, 'utf8').toString('hex'),
    'random bytes (hex)': raw.toString('hex'),
    'random bytes (base64)': raw.toString('base64').replace(/=+$/, ''),
  };
}

/**
 * Every table of every database of the mesh (all schemas but the catalogs), each row read whole
 * as text (every column, whatever its type: text, json, arrays, bytea in hex), searched for each
 * form: what a `pg_dump` of each database would give away.
 */
export async function findInDatabases(mesh: TestMesh, forms: Record<string, string>): Promise<Sighting[]> {
  const { rows: databases } = await onPgServer((c) =>
    c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [mesh.dbPrefix]),
  );
  expect(databases.length).toBeGreaterThan(0);
  const sightings: Sighting[] = [];
  for (const { datname } of databases) {
    const url = new URL(PG_SERVER_URL);
    url.pathname = `/${datname}`;
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ schema: string; name: string }>(
        `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
          WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      expect(tables.length).toBeGreaterThan(0);
      for (const { schema, name } of tables) {
        const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(name)}`;
        for (const [form, value] of Object.entries(forms)) {
          const { rows } = await client.query(`SELECT 1 FROM ${table} AS t WHERE strpos(t::text, $1) > 0 LIMIT 1`, [value]);
          if (rows.length > 0) sightings.push({ table: `${datname}.${schema}.${name}`, form });
        }
      }
    } finally {
      await client.end();
    }
  }
  return sightings;
}
