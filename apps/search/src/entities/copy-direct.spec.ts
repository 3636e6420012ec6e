import { EntitiesRepository, entitiesCopyDirect } from './entities.repository';
import { EntityInput, facetTerms, searchTextOf, termsOf } from './entity';
import { SegmentBuilder } from './memory-index';
import { seedEntity } from './seed';

/** The rows of a binary COPY (header, then rows of length-prefixed fields, then -1): each row's fields as buffers (null for NULL). */
function rowsOf(pieces: Buffer[]): (Buffer | null)[][] {
  const buf = Buffer.concat(pieces);
  let at = 19 + buf.readUInt32BE(15);
  const rows: (Buffer | null)[][] = [];
  for (let fields = buf.readInt16BE(at); fields !== -1; fields = buf.readInt16BE(at)) {
    at += 2;
    const row: (Buffer | null)[] = [];
    for (let f = 0; f < fields; f++) {
      const length = buf.readInt32BE(at);
      at += 4;
      row.push(length < 0 ? null : buf.subarray(at, at + length));
      at += Math.max(0, length);
    }
    rows.push(row);
  }
  return rows;
}

/** A tsvector in tsvectorrecv's form: its lexemes, each with no position. */
function lexemesOf(value: Buffer): string[] {
  const lexemes: string[] = [];
  let at = 4;
  for (let n = value.readInt32BE(0); n > 0; n--) {
    const end = value.indexOf(0, at);
    lexemes.push(value.toString('utf8', at, end));
    expect(value.readUInt16BE(end + 1)).toBe(0);
    at = end + 3;
  }
  expect(at).toBe(value.length);
  return lexemes;
}

describe('a fresh batch written for COPY into entities (entitiesCopyDirect)', () => {
  const entity = (n: number, over: Partial<EntityInput>): EntityInput => ({ ...seedEntity(n), ...over });

  it('writes each row\'s terms as termsOf makes them, each lexeme once, and the builder gets the same terms', () => {
    const entities = [
      ...Array.from({ length: 300 }, (_, n) => seedEntity(n)),
      entity(1000, { search_text: 'BIO BIO bio Immunology cooperative_agreement I_2 ARPA-E arpa-e arpa Co-Founder doe.gov.example Tokyo, IN, x9 6e75x' }),
      entity(1001, { search_text: '', facets: ['stage:seed', 'stage:seed', 'İstanbul', 7 as unknown as string, 'x'.repeat(2500)] }),
    ];
    const ids = entities.map((_, n) => `ent_${n}`);
    const builder = new SegmentBuilder(entities.length);
    const pieces = entitiesCopyDirect(entities, ids, builder);
    expect(pieces).toBeDefined();
    const rows = rowsOf(pieces!);
    expect(rows).toHaveLength(entities.length);
    rows.forEach((row, r) => {
      expect(row).toHaveLength(22);
      expect(row[0]!.toString()).toBe(ids[r]);
      expect(row[20]!.toString()).toBe(searchTextOf(entities[r]));
      const written = lexemesOf(row[21]!);
      expect(new Set(written).size).toBe(written.length);
      expect([...written].sort()).toEqual([...termsOf(searchTextOf(entities[r]), facetTerms(entities[r].facets))!].sort());
    });
    // facets once each, NULs and numbers as facetTerms has them, one of 2,000 bytes or more left out
    expect(lexemesOf(rows[301][21]!).filter((l) => l.startsWith('F:')).sort()).toEqual(['F:7', 'F:stage:seed', 'F:İstanbul']);
    const segment = builder.build();
    expect(segment.size).toBe(entities.length);
    // every lexeme written is a term of the segment
    const missing = rows.flatMap((row) => lexemesOf(row[21]!)).filter((l) => segment.dict.find(Buffer.from(l), 0, Buffer.byteLength(l)) < 0);
    expect(missing).toEqual([]);
  });

  it('writes a number as the text of it would be read (bigint and integer in network order), and refuses what int8in and int4in refuse', () => {
    const write = (over: Partial<EntityInput>) => rowsOf(entitiesCopyDirect([entity(7, over)], ['ent_7'], new SegmentBuilder(1))!)[0];
    for (const [min, max, rank] of [[-5, 2 ** 53 - 1, -7], [-(2 ** 40) - 3, 0, 2147483647], [4294967296, -1, -2147483648]]) {
      const asNumbers = write({ num_min: min, num_max: max, rank_score: rank });
      const asTexts = write({ num_min: String(min) as unknown as number, num_max: String(max) as unknown as number, rank_score: String(rank) as unknown as number });
      expect(asNumbers.slice(16, 19)).toEqual(asTexts.slice(16, 19));
      expect(asNumbers[16]!.readBigInt64BE(0)).toBe(BigInt(min));
      expect(asNumbers[17]!.readBigInt64BE(0)).toBe(BigInt(max));
      expect(asNumbers[18]!.readInt32BE(0)).toBe(rank);
    }
    expect(() => write({ rank_score: 2147483648 })).toThrow('out of range for type integer');
    expect(() => write({ rank_score: 1.5 })).toThrow('invalid input syntax for type integer');
    expect(() => write({ num_min: 1.5 })).toThrow('invalid input syntax for type bigint');
    expect(() => write({ num_min: 2 ** 63 })).toThrow('out of range for type bigint');
  });

  it('writes details and sources as json takes them (their text, no jsonb version byte), a lone surrogate as U+FFFD, and refuses a NUL escape as jsonb and text do', () => {
    const write = (over: Partial<EntityInput>) => rowsOf(entitiesCopyDirect([entity(8, over)], ['ent_8'], new SegmentBuilder(1))!)[0];
    const details = { industry: 'software', note: 'ünïcødé "quoted" \\ back', n: [1, 2.5, null, true] };
    const row = write({ details });
    expect(row[14]!.toString('utf8')).toBe(JSON.stringify(details));
    expect(row[19]!.toString('utf8')).toBe(JSON.stringify(seedEntity(8).sources));
    const none = write({ details: undefined as never, sources: undefined as never });
    expect([none[14]!.toString(), none[19]!.toString()]).toEqual(['{}', '[]']);
    expect(JSON.parse(write({ details: { x: 'a\ud800b' } })[14]!.toString('utf8'))).toEqual({ x: 'a\ufffdb' });
    expect(() => write({ details: { x: 'a\u0000b' } })).toThrow('unsupported Unicode escape sequence');
    expect(() => write({ sources: [{ field: 'name', value: '\u0000' }] as never })).toThrow('unsupported Unicode escape sequence');
    // a backslash before `u0000` is not an escape of NUL
    expect(JSON.parse(write({ details: { x: 'a\\u0000b' } })[14]!.toString('utf8'))).toEqual({ x: 'a\\u0000b' });
  });

  it('gives nothing for a batch with a token termsOf does not know, or a facet with a NUL: the load table takes it', () => {
    const builder = () => new SegmentBuilder(4);
    expect(entitiesCopyDirect([seedEntity(1), entity(2, { search_text: 'mail x@y.io' })], ['ent_1', 'ent_2'], builder())).toBeUndefined();
    expect(entitiesCopyDirect([entity(3, { search_text: 'a <b>tag</b>' })], ['ent_3'], builder())).toBeUndefined();
    // a number in scientific notation and a word after it, not a plain word (a capital I): PostgreSQL's parser reads two lexemes
    expect(entitiesCopyDirect([entity(4, { search_text: '6E75lorsI' })], ['ent_4'], builder())).toBeUndefined();
    expect(entitiesCopyDirect([entity(5, { facets: ['a\0b'] })], ['ent_5'], builder())).toBeUndefined();
    expect(entitiesCopyDirect([seedEntity(6)], ['ent_6'], builder())).toBeDefined();
  });
});

describe('a writer checks termsOf against its server once (EntitiesRepository.termsAgree)', () => {
  /** A repository over a fake pool whose parser gives `parse(text)` for the probe text; the number of times it was asked. */
  const over = (parse: (text: string) => string[]) => {
    let asked = 0;
    const pool = { query: async (_sql: string, values: string[]) => (asked++, { rows: [{ lexemes: parse(values[0]) }] }) };
    const repository = new EntitiesRepository(pool as unknown as ConstructorParameters<typeof EntitiesRepository>[0], undefined as never);
    const agree = () => (repository as unknown as { termsAgree(): Promise<boolean> }).termsAgree();
    return { agree, asked: () => asked };
  };

  it('uses its own terms when the server makes the same lexemes of the probe, asked once', async () => {
    const { agree, asked } = over((text) => [...termsOf(text, [])!].reverse());
    expect(await agree()).toBe(true);
    expect(await agree()).toBe(true);
    expect(asked()).toBe(1);
  });

  it('leaves them to the server when its parser lowers otherwise (a Turkish locale\'s dotless i)', async () => {
    const { agree } = over((text) => termsOf(text, [])!.map((l) => (l === 'bio' ? 'bıo' : l)));
    expect(await agree()).toBe(false);
  });
});
