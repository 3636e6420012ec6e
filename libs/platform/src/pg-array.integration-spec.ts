import { Client } from 'pg';
import { pgArrayLiteral } from './pg-array';

/** pgArrayLiteral against the real PostgreSQL of the tests: every element comes back as it was sent, as with node-postgres' own arrays. */
describe('pgArrayLiteral', () => {
  const client = new Client({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres' });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  const awkward = [
    'ent_01JABC', 'ws_9-x.y:z@a+b', null, undefined, '', ' ', ' lead', 'trail ', 'a b', 'NULL', 'null', 'Null', 'nulls', 'a,b', '{x}', '}', '{',
    '"', 'say "hi"', '\\', 'back\\slash', '\\"', 'tab\there', 'new\nline', 'é ü 😀', '(12,3)', "it's", '[1:2]={a}', 'NaN',
  ];

  it('round-trips text elements that need no quotes, quotes, escapes, NULL spelled as text and NULL itself', async () => {
    const { rows } = await client.query<{ v: (string | null)[] }>('SELECT $1::text[] AS v', [pgArrayLiteral(awkward)]);
    expect(rows[0].v).toEqual(awkward.map((v) => v ?? null));
    // node-postgres' own literal of the same array reads the same
    const pg = await client.query<{ v: (string | null)[] }>('SELECT $1::text[] AS v', [awkward]);
    expect(rows[0].v).toEqual(pg.rows[0].v);
  });

  it('writes numbers, tids and xids as PostgreSQL reads them', async () => {
    const { rows } = await client.query<{ n: number[]; t: string[]; x: string[] }>(
      'SELECT $1::int[] AS n, $2::tid[]::text[] AS t, $3::xid[]::text[] AS x',
      [pgArrayLiteral([0, 1, -7, 2147483647]), pgArrayLiteral(['(0,1)', '(4294967295,65535)', null]), pgArrayLiteral(['3', '4294967295', null])],
    );
    expect(rows[0]).toEqual({ n: [0, 1, -7, 2147483647], t: ['(0,1)', '(4294967295,65535)', null], x: ['3', '4294967295', null] });
  });

  it('is an empty array for no elements, and bare elements go as they are', async () => {
    expect(pgArrayLiteral([])).toBe('{}');
    expect((await client.query<{ v: string[] }>('SELECT $1::text[] AS v', [pgArrayLiteral([])])).rows[0].v).toEqual([]);
    const ids = ['ent_a1', 'ent_b2', null, 'ws_c3'];
    expect(pgArrayLiteral(ids)).toBe('{ent_a1,ent_b2,NULL,ws_c3}');
  });

  it('never lets an element end the array or become NULL: an element is read back alone', async () => {
    for (const value of awkward.filter((v): v is string => typeof v === 'string')) {
      const { rows } = await client.query<{ v: string[] }>('SELECT $1::text[] AS v', [pgArrayLiteral([value])]);
      expect(rows[0].v).toEqual([value]);
    }
  });
});
