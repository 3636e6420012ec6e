import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { TestMesh } from '../../../../test/harness';
import { migratedSearchDatabase } from '../../../../test/support/search-database';
import { parseProviderFile } from '../../../admin/src/ingest/connectors';
import { EntitiesRepository } from './entities.repository';
import { EntityInput, facetTerms, searchTextOf, splitSearchText, termsOf } from './entity';
import { seedEntity } from './seed';

/** Texts of every kind the parser tells apart: words, hosts, e-mails, URLs, numbers, hyphens, tags, entities, non-ASCII. */
const EDGE_TEXTS = [
  '', ' ', '   a  b   ', 'Boston, MA, US', 'Inc INC inc Istanbul', 'a,b, c,, d ,e', 'x@y.com bluenorth12.example 3.5 -7 +8 1e10 1.2.3',
  'Machine-Learning ÉCOLE 日本 Zürich Straße it\'s a\\b', 'http://example.com/a b https://x.y/z?q=1 /usr/local/bin file.txt',
  '<b class="x y">bold</b> after', 'a < b and c > d', '<!-- note here --> word', '&amp; &lt;tag&gt; AT&T R&D',
  'pre_seed family_office snake_case_Word', 'e-mail co-founder self- -sufficient', '2024-01-25 12:30 10,000 $5M 50%',
  'tab\there new\nline cr\rreturn', 'ABC123 123abc 0042 x1y2', 'ⅰ Ⅰ İstanbul ıi', 'emoji 😀 ok', 'lone \ud800 surrogate',
  `${'a'.repeat(255)} ${'b'.repeat(256)} ${'c'.repeat(3000)}`, 'trailing,', ',', ',,', 'a,', 'A,', 'I, I', 'quote"s and \'single\'',
  // more other tokens than CopyText.searchWords keeps the places of
  Array.from({ length: 40 }, (_, i) => `x.${i} Word${i}`).join(' '),
];

/** Deterministic texts of characters the parser treats differently, spaces among them. */
function fuzzTexts(count: number): string[] {
  const chars = ['a', 'B', 'I', 'z', ' ', ' ', ' ', ',', '-', '.', '@', '/', '<', '>', '&', ';', '0', '9', 'é', 'İ', 'ß', '_', "'", '"', '\\', '\t', ':', 'e', 'x', 'h', 't', 'p', 'w', 'c', 'o', 'm', '+', '#', '!'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = '';
    const length = 1 + Math.floor(next() * 48);
    for (let j = 0; j < length; j++) text += chars[Math.floor(next() * chars.length)];
    out.push(text);
  }
  return out;
}

const sample = (name: string) => readFileSync(join(__dirname, '../../samples', name), 'utf8');
const SAMPLES: [Parameters<typeof parseProviderFile>[0], string][] = [
  ['openalex', 'openalex-authors.json'], ['openalex', 'openalex-institutions.json'], ['opencorporates', 'opencorporates-companies.json'],
  ['nih_reporter', 'nih-reporter-projects.json'], ['nsf_awards', 'nsf-awards.json'], ['grants_gov', 'grants-gov-extract.xml'],
  ['orcid', 'orcid-record.json'], ['sec_edgar', 'sec-edgar-form-d-primary_doc.xml'],
];

/**
 * `terms` is made from splitSearchText's two parts (entities.repository.ts TERMS_SQL) instead of
 * PostgreSQL's parser over the whole search text: the lexemes must be the same for every text.
 */
describe('search text split for terms (real PostgreSQL)', () => {
  let mesh: TestMesh;
  let pool: Pool;

  beforeAll(async () => {
    let url: string;
    ({ mesh, url } = await migratedSearchDatabase());
    pool = new Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await mesh?.close();
  });

  const samples = (): EntityInput[] => SAMPLES.flatMap(([provider, file]) => parseProviderFile(provider, sample(file), '2026-11-01T00:00:00.000Z'));

  it('gives the lexemes of to_tsvector(simple) of the whole text, for generated, connector, edge and fuzzed texts', async () => {
    const texts = [
      ...EDGE_TEXTS,
      ...fuzzTexts(30_000),
      ...Array.from({ length: 3_000 }, (_, n) => searchTextOf(seedEntity(n))),
      ...samples().map(searchTextOf),
    ];
    // the texts as PostgreSQL receives them (UTF-8: a lone surrogate is U+FFFD in all three)
    const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
    const parts = texts.map(splitSearchText);
    expect(parts.filter((p) => p.plain !== '').length).toBeGreaterThan(3_000);
    const { rows } = await pool.query<{ i: number; whole: string; split: string }>(
      `SELECT i::int, strip(to_tsvector('simple', t))::text AS whole,
              (array_to_tsvector(string_to_array(p, ' ')) || strip(to_tsvector('simple', o)))::text AS split
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS x(t, p, o, i)`,
      [texts.map(utf8), parts.map((p) => utf8(p.plain)), parts.map((p) => utf8(p.other))],
    );
    expect(rows).toHaveLength(texts.length);
    const differing = rows.filter((r) => r.whole !== r.split).map((r) => ({ text: texts[r.i - 1], whole: r.whole, split: r.split }));
    expect(differing).toEqual([]);
  });

  it('termsOf makes the lexemes the load table\'s INSERT stores, for every text whose tokens it knows; it knows every generated text', async () => {
    // tokens of the shapes termsOf knows and of their near misses: capital I, underscores, hyphens, host names, numbers in scientific notation
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const word = (alphabet: string, max: number) => Array.from({ length: 1 + Math.floor(next() * max) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    const shapes = [
      () => word('0123456789eEIiaZ', 9) + (next() < 0.2 ? ',' : ''),
      () => Array.from({ length: 2 + Math.floor(next() * 3) }, () => word('abcIZ0123456789eE', 6)).join('_'),
      () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => word('abcxyz', 1) + word('abz0189-', 5)).join('.') + '.' + word('abcxyz', 4),
      () => Array.from({ length: 2 + Math.floor(next() * 3) }, () => word('abcIZ', 6)).join('-'),
    ];
    const tokens = Array.from({ length: 20_000 }, () => Array.from({ length: 1 + Math.floor(next() * 4) }, () => shapes[Math.floor(next() * shapes.length)]()).join(' '));
    const generated = Array.from({ length: 3_000 }, (_, n) => searchTextOf(seedEntity(n)));
    const texts = [...EDGE_TEXTS, ...fuzzTexts(20_000), ...tokens, ...generated, ...samples().map(searchTextOf)];
    const known = texts.map((t) => termsOf(t, []));
    expect(generated.every((t) => termsOf(t, []) !== undefined)).toBe(true);
    expect(known.filter((k) => k !== undefined).length).toBeGreaterThan(12_000); // 16,978 of 46,000-odd: the check is not empty
    const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
    const parts = texts.map(splitSearchText);
    const { rows } = await pool.query<{ i: number; stored: string[] }>(
      `SELECT i::int, tsvector_to_array(array_to_tsvector(string_to_array(p, ' ')) || strip(to_tsvector('simple', o))) AS stored
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(p, o, i)`,
      [parts.map((p) => utf8(p.plain)), parts.map((p) => utf8(p.other))],
    );
    const differing = rows.filter((r) => known[r.i - 1] !== undefined && [...known[r.i - 1]!].sort().join(' ') !== [...r.stored].sort().join(' '))
      .map((r) => ({ text: texts[r.i - 1], mine: known[r.i - 1], stored: r.stored }));
    expect(differing).toEqual([]);
  });

  it('stores terms as the whole text parsed would make them, with the facets (the COPY text written as splitSearchText cuts it)', async () => {
    const entities: EntityInput[] = [
      ...samples(),
      ...Array.from({ length: 500 }, (_, n) => seedEntity(n)),
      ...[...EDGE_TEXTS, ...fuzzTexts(5_000)].map((text, n): EntityInput => ({ ext_key: `edge:${n}`, lens: 'leads', name: `Edge ${n}`, search_text: text, facets: ['country:US', `x ${n}`] }) as EntityInput),
    ];
    await new EntitiesRepository(pool, undefined as never).upsertMany(entities);
    // a batch of generated entities only: its terms made by termsOf, copied straight into entities
    const generated = Array.from({ length: 2_000 }, (_, n) => ({ ...seedEntity(100_000 + n), facets: [...(seedEntity(100_000 + n).facets ?? []), 'x I_2', 'İ'] }));
    await new EntitiesRepository(pool, undefined as never).upsertMany(generated);
    entities.push(...generated);
    const expected = entities.map((e) => ({ ext_key: e.ext_key, facet_terms: facetTerms(e.facets) }));
    const { rows } = await pool.query<{ ext_key: string; stored: string; whole: string }>(
      `SELECT e.ext_key, e.terms::text AS stored, (strip(to_tsvector('simple', e.search_text)) || array_to_tsvector(x.facet_terms))::text AS whole
         FROM jsonb_to_recordset($1::jsonb) AS x(ext_key text, facet_terms text[]) JOIN entities e USING (ext_key)`,
      [JSON.stringify(expected)],
    );
    expect(rows).toHaveLength(new Set(entities.map((e) => e.ext_key)).size);
    expect(rows.filter((r) => r.stored !== r.whole)).toEqual([]);
  });
});
