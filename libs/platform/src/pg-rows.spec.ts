import * as pg from 'pg';
import { Client } from 'pg';
import { installFastRowShape } from './pg-rows';

/** Rows built by the fast row shape, against the real PostgreSQL of the tests. */
describe('installFastRowShape', () => {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  let client: Client;
  beforeAll(async () => {
    installFastRowShape();
    installFastRowShape(); // twice is once
    client = new Client({ connectionString: url });
    await client.connect();
  });
  afterAll(() => client.end());

  it("replaces pg's addFields once", () => {
    const { Result } = pg as unknown as { Result: { prototype: Record<string | symbol, unknown> } };
    expect(Result.prototype[Symbol.for('lead-intelligence.pg-fast-rows')]).toBe(true);
    expect((Result.prototype.addFields as { name: string }).name).toBe('addFields');
  });

  it('gives ordinary rows with every column in order, parsed by type, nulls as null, for named statements too', async () => {
    for (const name of [undefined, 'fast-rows-spec']) {
      const { rows } = await client.query({
        name,
        text: `SELECT x AS id, 'a' || x AS label, NULL::text AS empty, (x * 1.5)::float8 AS score, '2026-11-26T03:31:01.123Z'::timestamptz AS at, ARRAY['t1','t2'] AS tags, '{"k":1}'::jsonb AS doc
                 FROM generate_series(1, 3) AS x ORDER BY x`,
      });
      expect(rows).toHaveLength(3);
      expect(rows.map((r) => Object.keys(r))).toEqual(Array(3).fill(['id', 'label', 'empty', 'score', 'at', 'tags', 'doc']));
      expect(rows[1]).toEqual({ id: 2, label: 'a2', empty: null, score: 3, at: new Date('2026-11-26T03:31:01.123Z'), tags: ['t1', 't2'], doc: { k: 1 } });
      expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
      // each row is its own object
      rows[0].label = 'changed';
      expect(rows[2].label).toBe('a3');
    }
  });

  it('keeps a column named __proto__ as data, never as the prototype', async () => {
    const { rows } = await client.query(`SELECT 1 AS "__proto__", 2 AS a`);
    expect(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value).toBe(1);
    expect(rows[0].a).toBe(2);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  it('a query of no columns and a second result set of a multi-statement query', async () => {
    expect((await client.query('SELECT')).rows).toEqual([{}]);
    const results = (await client.query('SELECT 1 AS one; SELECT 2 AS two, 3 AS three')) as unknown as { rows: unknown[] }[];
    expect(results.map((r) => r.rows)).toEqual([[{ one: 1 }], [{ two: 2, three: 3 }]]);
  });
});
