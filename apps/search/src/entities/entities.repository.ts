import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Pool, PoolClient, Query } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { EmailStatus, ID_PREFIX, Lens, OpportunityProfile, SEARCH_MAX_PAGE, SEARCH_PER_PAGE, SourceRecord } from '@app/contracts';
import { newIds, PG_POOL, pgArrayLiteral, ReadBatch } from '@app/platform';
import { SearchReads } from '../search/search-reads.store';
import { DEFAULT_PAGE_READS_AT_ONCE, DEFAULT_ROW_CACHE, SEARCH_CONFIG, SearchConfig } from '../search.config';
import { EntityInput, facetTerms, facetTermValue, plainWordEnd, searchTextOf, termsOf, TokenShape, tokenShape, wordEndOf } from './entity';
import { Segment, SegmentBuilder } from './memory-index';
import { CopyBinaryDocs, MemorySearchIndex } from './memory-search-index.store';
import { seedEntity } from './seed';
import { EncodedChunk, SeedEncoder } from './seed-encoder';

export interface EntityRow {
  id: string;
  lens: Lens;
  name: string;
  person_name: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  organization: string | null;
  location: string | null;
  country: string | null;
  domain: string | null;
  email: string | null;
  phone: string | null;
  details: Record<string, unknown>;
  sources: SourceRecord[];
  revealed?: boolean;
  revealed_email_status?: EmailStatus | null;
}

/**
 * An entity of a page as rendered: its `details` and `sources` as PostgreSQL writes the jsonb
 * (`details_json`, `sources_json`), not parsed: the page's JSON is made with them spliced in as they
 * are (hitJson), since parsing them and serialising them again was about a fifth of search's CPU
 * a page (docs/benchmarks.md, 2026-11-30).
 */
export type PageEntity = Omit<EntityRow, 'details' | 'sources'> & { details_json: string; sources_json: string };

/** One page's rows and the workspace's opportunity profile (undefined when it has none). */
export interface Page {
  rows: PageEntity[];
  profile: OpportunityProfile | undefined;
}

/**
 * A filter condition as the in-memory index asks it: a document has one of the facets (`F:` ||
 * facet in `terms`), every word of a text (as plainto_tsquery('simple') makes them), or a numeric
 * column compared with a value (NULL never matches).
 */
export type Condition =
  | { facets: string[] }
  | { words: string }
  | { column: 'num_min' | 'num_max'; op: '>=' | '<=' | '<'; value: number };

/** Ids a query can page through: 40 pages of 25, and one more to tell `has_more`. */
const RANKED_MAX = SEARCH_MAX_PAGE * SEARCH_PER_PAGE + 1;
/**
 * The index generation (migration 0011): a column of the one row every batch updates in its own
 * transaction, so a snapshot sees a batch's rows and its generation together, on the primary as on
 * a streaming replica (a sequence's value on a replica moves only when its WAL-logged look-ahead does).
 */
const GENERATION_SQL = `SELECT generation::text AS generation FROM entities_count`;

/**
 * `terms` of a row of the batch (migrations 0004, 0005): its words (as to_tsvector('simple') makes
 * them, without positions) and 'F:' || facet for each facet (facetTerms). (Rows written before
 * migration 0006 also hold a rank-band token 'B:<lens>:<band>' that nothing reads any more.)
 * The words are `strip(to_tsvector('simple', search_text))`, made from the two parts of
 * splitSearchText: its plain words are lexemes as they are, the rest goes through the parser.
 */
const TERMS_SQL = `array_to_tsvector(string_to_array(t.plain_words, ' ') || t.facet_terms) || strip(to_tsvector('simple', t.other_words))`;

/** The columns of a batch as COPY sends them (entitiesCopyBinary writes them in this order, as these types). */
const LOAD_COLUMNS: [string, string][] = [
  ['id', 'text'], ['ext_key', 'text'], ['lens', 'text'], ['name', 'text'], ['person_name', 'text'], ['first_name', 'text'], ['last_name', 'text'],
  ['title', 'text'], ['organization', 'text'], ['location', 'text'], ['country', 'text'], ['domain', 'text'], ['email', 'text'], ['phone', 'text'],
  ['details', 'json'], ['facets', 'text[]'], ['num_min', 'bigint'], ['num_max', 'bigint'], ['rank_score', 'int'], ['sources', 'json'],
  ['search_text', 'text'], ['facet_terms', 'text[]'], ['plain_words', 'text'], ['other_words', 'text'],
];
const LOAD_COLUMN_NAMES = LOAD_COLUMNS.map(([name]) => name).join(', ');
const LOAD_TABLE_SQL = `CREATE TEMP TABLE IF NOT EXISTS entities_load (${LOAD_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')}) ON COMMIT DELETE ROWS`;
const COPY_LOAD_SQL = `COPY entities_load (${LOAD_COLUMN_NAMES}) FROM STDIN (FORMAT binary)`;
/**
 * The batch moved from the load table into `entities`, its rows as the statement left them sent
 * back as binary COPY (the columns a build reads, the row's new ctid, where pages read it, and
 * whether the row was inserted): the writing
 * process's in-memory index takes the batch from them (MemorySearchIndex.written) instead of
 * reading it back after the commit.
 *
 * `upsert` false: a plain INSERT, which fails on the first ext_key already stored (unique
 * violation) and which upsertMany tries first; true: INSERT ... ON CONFLICT (ext_key) DO UPDATE,
 * which upsertMany runs when the plain one failed so. The plain INSERT spares PostgreSQL the
 * speculative insertion of every row (the arbiter index looked up before the row is written, the
 * row confirmed after: a WAL record more a row); both leave the same rows.
 */
const moveFromLoadSql = (upsert: boolean): string => `COPY (
       INSERT INTO entities (id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain,
                             email, phone, details, facets, num_min, num_max, rank_score, sources, search_text, terms)
       SELECT id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain,
              email, phone, details, facets, num_min, num_max, rank_score, sources, search_text,
              ${TERMS_SQL}
         FROM entities_load t
       ${upsert ? `ON CONFLICT (ext_key) DO UPDATE SET
         lens = EXCLUDED.lens, name = EXCLUDED.name, person_name = EXCLUDED.person_name, first_name = EXCLUDED.first_name,
         last_name = EXCLUDED.last_name, title = EXCLUDED.title, organization = EXCLUDED.organization, location = EXCLUDED.location,
         country = EXCLUDED.country, domain = EXCLUDED.domain, email = coalesce(EXCLUDED.email, entities.email),
         phone = coalesce(EXCLUDED.phone, entities.phone), details = EXCLUDED.details, facets = EXCLUDED.facets,
         num_min = EXCLUDED.num_min, num_max = EXCLUDED.num_max, rank_score = EXCLUDED.rank_score, sources = EXCLUDED.sources,
         search_text = EXCLUDED.search_text, terms = EXCLUDED.terms, updated_at = now()` : ''}
       RETURNING id, lens, rank_score, num_min::float8, num_max::float8, terms, ctid, (xmax = 0)) TO STDOUT (FORMAT binary)`;
const INSERT_FROM_LOAD_SQL = moveFromLoadSql(false);
const UPSERT_FROM_LOAD_SQL = moveFromLoadSql(true);
/** The savepoint a batch's plain INSERT goes back to when a key of the batch is already stored. */
const FRESH_SAVEPOINT = 'entities_fresh';
/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** A NUL escape in JSON text (not an escaped backslash before `u0000`). */
const NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/;
/** A lone UTF-16 surrogate escape, which PostgreSQL's JSON parser refuses: stored as U+FFFD. */
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/** Start and end of the other tokens of one search text (CopyBinary.searchWords), up to 32 of them. */
const OTHER_TOKENS = new Int32Array(64);

/** COPY data is written into buffers of this many bytes, handed on as they fill. */
const COPY_PIECE = 256 * 1024;
/** The binary COPY header: its signature "PGCOPY\n\377\r\n\0", no flags, no extension. */
const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** The pg_type oid of text, the element type of a text[] in binary form (array_recv checks it). */
const TEXT_OID = 25;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;
/** What int8in and int4in take: an optional sign and decimal digits, spaces around. */
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/**
 * An integer column's value as PostgreSQL's text input would take it (a number, or the text of
 * one); anything else fails the batch, as it failed in PostgreSQL when COPY was text.
 */
function integerOf(v: unknown, type: 'bigint' | 'integer'): bigint {
  const text = String(v);
  if (typeof v === 'number' ? !Number.isInteger(v) : !INTEGER_TEXT.test(text)) throw new Error(`invalid input syntax for type ${type}: "${text}"`);
  const n = BigInt(typeof v === 'number' ? v : text.trim());
  if (type === 'bigint' ? n < INT8_MIN || n > INT8_MAX : n < -2147483648n || n > 2147483647n) throw new Error(`value "${text}" is out of range for type ${type}`);
  return n;
}

/**
 * COPY's binary format written straight into buffers, value by value: each row its field count,
 * each value its length and its bytes (text as UTF-8, json as its text, text[]
 * as array_send makes it, bigint and integer in network order). PostgreSQL then parses neither
 * text escapes, nor array literals, nor numbers (it only checks the JSON of the two json columns), and
 * search escapes nothing. No string is made for a row (the concatenations and their UTF-8
 * encoding were a large part of a seed's time in search, and of its garbage). A lone UTF-16
 * surrogate is written as U+FFFD (as Buffer's UTF-8 writes it; said explicitly in JSON). A buffer
 * may end inside a row: PostgreSQL reads COPY data as one stream.
 */
class CopyBinary {
  readonly pieces: Buffer[] = [];
  private buf = Buffer.allocUnsafe(COPY_PIECE);
  private at = 0;

  constructor() {
    COPY_HEADER.copy(this.buf, 0);
    this.at = COPY_HEADER.length;
  }

  /** The start of a row of `fields` values. */
  row(fields: number): void {
    this.room(2);
    this.at = this.buf.writeInt16BE(fields, this.at);
  }

  /** A text value (a value not a string as its text, as a template literal makes it); NULL for null. */
  value(v: unknown): void {
    if (v === null || v === undefined) this.nul();
    else this.text(typeof v === 'string' ? v : `${v}`);
  }

  /** A string as text: its length, then its UTF-8 bytes (how many, returned). */
  text(s: string): number {
    this.room(4 + s.length * 3);
    const written = this.buf.write(s, this.at + 4);
    this.buf.writeInt32BE(written, this.at);
    this.at += 4 + written;
    return written;
  }

  /**
   * JSON for a json column: the text. A NUL escape (`\u0000`) fails the batch, as jsonb's input
   * (which these columns had: migration 0024) and PostgreSQL's text refuse it: a value that
   * cannot become text would fail later where a reveal copies it into a jsonb column.
   */
  json(v: unknown): void {
    let json = JSON.stringify(v);
    if (json.includes('\\u0000') && NUL_ESCAPE.test(json)) throw new Error('unsupported Unicode escape sequence: \\u0000 cannot be converted to text');
    if (json.includes('\\ud')) json = json.replace(LONE_SURROGATE, '$1\\ufffd');
    this.room(4 + json.length * 3);
    const written = this.buf.write(json, this.at + 4);
    this.buf.writeInt32BE(written, this.at);
    this.at += 4 + written;
  }

  /** A text[] (array_send's form: dimensions, whether a NULL is in it, the element type, then the elements); NULL elements for null. */
  array(values: readonly unknown[]): void {
    // the whole array's room at once (at most 3 bytes a UTF-16 unit), so that it is in one buffer:
    // its length, written at its end, is before its elements
    const texts = values.map((v) => (v === null || v === undefined ? null : String(v)));
    let most = 24;
    for (const t of texts) most += 4 + (t === null ? 0 : t.length * 3);
    this.room(most);
    const buf = this.buf;
    const start = this.at;
    if (texts.length === 0) {
      buf.writeInt32BE(12, start);
      buf.writeInt32BE(0, start + 4); // dimensions
      buf.writeInt32BE(0, start + 8); // no NULL
      buf.writeInt32BE(TEXT_OID, start + 12);
      this.at = start + 16;
      return;
    }
    buf.writeInt32BE(1, start + 4);
    buf.writeInt32BE(texts.includes(null) ? 1 : 0, start + 8);
    buf.writeInt32BE(TEXT_OID, start + 12);
    buf.writeInt32BE(texts.length, start + 16);
    buf.writeInt32BE(1, start + 20); // lower bound
    let at = start + 24;
    for (const t of texts) {
      if (t === null) {
        at = buf.writeInt32BE(-1, at);
        continue;
      }
      const written = buf.write(t, at + 4);
      buf.writeInt32BE(written, at);
      at += 4 + written;
    }
    buf.writeInt32BE(at - start - 4, start);
    this.at = at;
  }

  /**
   * splitSearchText's two parts of a text as two text values: the plain words written byte by
   * byte, lowered (ASCII), then the other tokens.
   */
  searchWords(text: string): void {
    if (text.indexOf('<') !== -1) {
      this.text('');
      this.text(text);
      return;
    }
    const n = text.length;
    // the plain words written as they are met (at most 3 bytes a character of the text); the other tokens' ranges kept
    this.room(4 + n * 3);
    const buf = this.buf;
    const start = this.at;
    let at = start + 4;
    const others = OTHER_TOKENS;
    let count = 0;
    let first = true;
    for (let s = 0; s < n; ) {
      let e = text.indexOf(' ', s);
      if (e === -1) e = n;
      if (e > s) {
        const end = plainWordEnd(text, s, e);
        if (end < 0) {
          if (count < others.length) {
            others[count++] = s;
            others[count++] = e;
          } else count = others.length + 1; // more than it holds: found in the text again below
        } else {
          if (!first) buf[at++] = 0x20;
          first = false;
          for (let i = s; i < end; i++) {
            const c = text.charCodeAt(i);
            buf[at++] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
          }
        }
      }
      s = e + 1;
    }
    buf.writeInt32BE(at - start - 4, start);
    this.at = at;
    // the other tokens, spaces between them (their bytes are at most the text's)
    this.room(4 + n * 3);
    const other = this.at;
    at = other + 4;
    // each token written in place, no closure made per text (the bundle names every closure it makes: a property write each)
    if (count <= others.length) {
      for (let k = 0; k < count; k += 2) {
        if (k > 0) this.buf[at++] = 0x20;
        at += this.buf.write(text.slice(others[k], others[k + 1]), at);
      }
    } else {
      first = true;
      for (let s = 0; s < n; ) {
        let e = text.indexOf(' ', s);
        if (e === -1) e = n;
        if (e > s && plainWordEnd(text, s, e) < 0) {
          if (!first) this.buf[at++] = 0x20;
          first = false;
          at += this.buf.write(text.slice(s, e), at);
        }
        s = e + 1;
      }
    }
    this.buf.writeInt32BE(at - other - 4, other);
    this.at = at;
  }

  /**
   * The columns an entity's row starts with, id to sources (LOAD_COLUMNS' first twenty, as
   * ENTITY_COLUMNS' too); its num_min and num_max kept in numMin and numMax (NaN for NULL).
   */
  entity(e: EntityInput, id: string): void {
    const idBytes = this.text(id);
    // where the id's UTF-8 bytes are (the buffer stays whole when a later value needs a new one)
    this.idBuf = this.buf;
    this.idTo = this.at;
    this.idFrom = this.at - idBytes;
    this.value(e.ext_key);
    this.value(e.lens);
    this.value(e.name);
    this.value(e.person_name);
    this.value(e.first_name);
    this.value(e.last_name);
    this.value(e.title);
    this.value(e.organization);
    this.value(e.location);
    this.value(e.country);
    this.value(e.domain);
    this.value(e.email);
    this.value(e.phone);
    this.json(e.details ?? {});
    this.array(e.facets ?? []);
    const numMin = this.bigint(e.num_min);
    const numMax = this.bigint(e.num_max);
    this.numMin = numMin === null ? NaN : Number(numMin);
    this.numMax = numMax === null ? NaN : Number(numMax);
    this.integer(e.rank_score ?? 0);
    this.json(e.sources ?? []);
  }

  /** num_min and num_max of the row `entity` wrote last, as numbers (NaN for NULL). */
  numMin = NaN;
  numMax = NaN;
  /** The UTF-8 bytes of the id of the row `entity` wrote last: idBuf[idFrom, idTo). */
  idBuf: Buffer = this.buf;
  idFrom = 0;
  idTo = 0;

  /** A bigint value; NULL for null. Returns the value written (null for NULL). */
  bigint(v: unknown): number | bigint | null {
    if (v === null || v === undefined) {
      this.nul();
      return null;
    }
    this.room(12);
    this.buf.writeInt32BE(8, this.at);
    if (Number.isSafeInteger(v)) {
      // a number (as a seed's and most connectors' are): its two halves, no BigInt made
      const high = Math.floor((v as number) / 0x1_0000_0000);
      this.buf.writeInt32BE(high, this.at + 4);
      this.buf.writeUInt32BE((v as number) - high * 0x1_0000_0000, this.at + 8);
      this.at += 12;
      return v as number;
    }
    const n = integerOf(v, 'bigint');
    this.buf.writeBigInt64BE(n, this.at + 4);
    this.at += 12;
    return n;
  }

  /**
   * `terms` of a row as a tsvector without positions (tsvectorrecv's form: the lexemes' count, then
   * each lexeme's UTF-8 bytes, a zero byte and a position count of 0; PostgreSQL sorts them): the
   * lexemes termsOf gives, written as bytes as the text is read (no string made for a plain word).
   * Each lexeme is given to `builder` as a term of the document begun last, which tells whether
   * the document has it already: then it is written over (each once). False when a token is of a
   * shape termsOf does not know, or a facet holds a NUL: the row is then for PostgreSQL's parser
   * (the batch goes by the load table) and what was written here is not sent.
   */
  terms(text: string, facets: readonly unknown[] | undefined, builder: SegmentBuilder): boolean {
    if (text.indexOf('<') !== -1) return false;
    const n = text.length;
    // a character is in at most two lexemes (a hyphenated word and its part), each lexeme 3 bytes more
    let most = 8 + 12 * n + 8;
    if (facets) for (const f of facets) if (f !== null && f !== undefined) most += 6 + String(f).length * 3;
    this.room(most);
    const buf = this.buf;
    const start = this.at;
    this.at = start + 8;
    this.lexemes = 0;
    for (let s = 0; s < n; ) {
      let e = text.indexOf(' ', s);
      if (e === -1) e = n;
      if (e > s) {
        const end = plainWordEnd(text, s, e);
        if (end > 0) this.lowered(text, s, end, builder);
        else if (!this.otherLexemes(text.slice(s, e), builder)) return false;
      }
      s = e + 1;
    }
    if (facets) {
      for (const f of facets) {
        const value = facetTermValue(f);
        if (value === undefined) continue;
        if (value.indexOf('\0') !== -1) return false;
        const from = this.at;
        buf[from] = 0x46; // F
        buf[from + 1] = 0x3a; // :
        this.lexeme(from, from + 2 + buf.write(value, from + 2), builder);
      }
    }
    buf.writeInt32BE(this.at - start - 4, start);
    buf.writeInt32BE(this.lexemes, start + 4);
    return true;
  }

  /** Lexemes written by the current `terms` value. */
  private lexemes = 0;

  /** The lexeme at [from, to) of the buffer, just written: kept (its zero byte and position count after it) unless the document has it. */
  private lexeme(from: number, to: number, builder: SegmentBuilder): void {
    if (!builder.term(this.buf, from, to)) {
      this.at = from;
      return;
    }
    this.buf[to] = 0;
    this.buf[to + 1] = 0;
    this.buf[to + 2] = 0;
    this.at = to + 3;
    this.lexemes++;
  }

  /** text[s, e) (ASCII letters, digits, and the hyphens and underscores of a token) written lowered as a lexeme. */
  private lowered(text: string, s: number, e: number, builder: SegmentBuilder): void {
    const buf = this.buf;
    const from = this.at;
    let at = from;
    for (let i = s; i < e; i++) {
      const c = text.charCodeAt(i);
      buf[at++] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
    }
    this.lexeme(from, at, builder);
  }

  /** The lexemes of a token that is not a plain word, as entity.ts otherTerms makes them; false when its shape is not one it knows. */
  private otherLexemes(token: string, builder: SegmentBuilder): boolean {
    const kind = tokenShape(token);
    if (kind === TokenShape.Unknown) return false;
    if (kind === TokenShape.Word) this.lowered(token, 0, wordEndOf(token), builder);
    else if (kind === TokenShape.Host) this.lowered(token, 0, token.length, builder);
    else {
      const sep = kind === TokenShape.Underscored ? 0x5f : 0x2d;
      if (kind === TokenShape.Hyphenated) this.lowered(token, 0, token.length, builder);
      for (let s = 0; s <= token.length; ) {
        let e = s;
        while (e < token.length && token.charCodeAt(e) !== sep) e++;
        this.lowered(token, s, e, builder);
        s = e + 1;
      }
    }
    return true;
  }

  /** An integer value; NULL for null. */
  integer(v: unknown): void {
    if (v === null || v === undefined) return this.nul();
    // a number in int4's range as it is (no text or BigInt made); anything else as int4in reads it
    const n = typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : Number(integerOf(v, 'integer'));
    this.room(8);
    this.buf.writeInt32BE(4, this.at);
    this.buf.writeInt32BE(n, this.at + 4);
    this.at += 8;
  }

  /** The buffers written, with the trailer (this writer is done). */
  end(): Buffer[] {
    this.room(2);
    this.at = this.buf.writeInt16BE(-1, this.at);
    this.pieces.push(this.buf.subarray(0, this.at));
    return this.pieces;
  }

  private nul(): void {
    this.room(4);
    this.at = this.buf.writeInt32BE(-1, this.at);
  }

  /** Makes `need` bytes of room in the current buffer (a new one when it has less). */
  private room(need: number): void {
    if (this.at + need <= this.buf.length) return;
    if (this.at > 0) this.pieces.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafe(Math.max(COPY_PIECE, need));
    this.at = 0;
  }
}

/**
 * The rows of a batch in COPY's binary format, columns in LOAD_COLUMNS order (CopyBinary). Lone
 * UTF-16 surrogates become U+FFFD (the UTF-8 encoding of the text does that for text columns; the
 * JSON of details and sources says so explicitly).
 */
export function entitiesCopyBinary(entities: readonly EntityInput[], ids: readonly string[]): Buffer[] {
  const out = new CopyBinary();
  for (let r = 0; r < entities.length; r++) {
    const e = entities[r];
    out.row(LOAD_COLUMNS.length);
    out.entity(e, ids[r]);
    const text = searchTextOf(e);
    out.value(text);
    out.array(facetTerms(e.facets));
    out.searchWords(text); // plain_words, other_words (splitSearchText)
  }
  return out.end();
}

/** The columns of `entities` a batch is copied into with its terms made here (entitiesCopyDirect), in that order. */
const ENTITY_COLUMNS = 'id, ext_key, lens, name, person_name, first_name, last_name, title, organization, location, country, domain, email, phone, details, facets, num_min, num_max, rank_score, sources, search_text, terms';
const COPY_ENTITIES_SQL = `COPY entities (${ENTITY_COLUMNS}) FROM STDIN (FORMAT binary)`;
/**
 * The rows the batch's COPY wrote (this transaction's rows in the blocks from `$1` on: a TID range
 * scan of what the COPY appended, others' rows there told apart by xmin, whose 32 bits are the low
 * bits of pg_current_xact_id) with their ctid; the index's size and generation moved and the
 * batch's ext_keys (`$3`) logged under the new generation, as the INSERT path's last statement does.
 * The generation comes on a row of its own (id NULL), so that it comes when the range holds none of
 * the batch's rows.
 */
const WRITTEN_SQL = `WITH mine AS (SELECT id, ctid FROM entities WHERE ctid >= $1::tid AND xmin::text::bigint = pg_current_xact_id()::text::bigint % 4294967296),
     g AS (UPDATE entities_count SET n = n + $2::bigint, generation = generation + 1 RETURNING generation),
     logged AS (INSERT INTO entities_changes (generation, ext_keys) SELECT g.generation, $3::text[] FROM g RETURNING generation),
     pruned AS (DELETE FROM entities_changes c USING logged WHERE logged.generation % 64 = 0 AND c.created_at < now() - interval '1 hour')
SELECT generation::text AS generation, NULL::text AS id, NULL::text AS tid FROM logged
UNION ALL
SELECT NULL, id, ctid::text FROM mine`;
/** The ctids of rows of the batch the range above did not hold (a row the COPY put in free space of an earlier block). */
const PLACED_SQL = `SELECT id, ctid::text AS tid FROM entities WHERE id = ANY($1::text[])`;
/** A text whose every token is of a shape termsOf knows, with the capital I that a locale lowers: the writer's check of termsOf against its server. */
const TERMS_PROBE = 'BIO Immunology cooperative_agreement I_2 ARPA-E Co-Founder doe.gov.example apexapex100108.example Tokyo, IN, x9';
/** What a batch that can be made again from nothing (the generated seed) sets in its transaction: its commit does not wait for its WAL to reach the disk (upsertMany). */
const REGENERABLE = ' SET LOCAL synchronous_commit = off;';
/** After a batch's COPY into `entities` found a key already stored, that batch and this many after it are written by INSERT ... SELECT first. */
export const DIRECT_PAUSE = 64;

/** A tid's text `(block,offset)` as its two numbers. */
function tidParts(tid: string): [number, number] {
  const comma = tid.indexOf(',');
  return [Number(tid.slice(1, comma)), Number(tid.slice(comma + 1, -1))];
}

/**
 * The rows of a batch as COPY into `entities` takes them (ENTITY_COLUMNS, binary), with `terms`
 * made here (termsOf), each row's document added to `builder` (fresh, its address not known yet:
 * SegmentBuilder.placeAt once its row is written). Undefined when a row's search text has a token
 * termsOf does not know (the batch then goes through the load table, which PostgreSQL's parser
 * reads: entitiesCopyBinary).
 */
export function entitiesCopyDirect(entities: readonly EntityInput[], ids: readonly string[], builder: SegmentBuilder): Buffer[] | undefined {
  const out = new CopyBinary();
  for (let r = 0; r < entities.length; r++) {
    const e = entities[r];
    const text = searchTextOf(e);
    out.row(22);
    out.entity(e, ids[r]);
    out.value(text);
    builder.startDoc(out.idBuf, out.idFrom, out.idTo, Number(e.rank_score ?? 0), out.numMin, out.numMax, String(e.lens), true);
    if (!out.terms(text, e.facets, builder)) return undefined;
    builder.endDoc();
  }
  return out.end();
}

/** Entities in ext_key order: batches written at once that share entities lock them in the same order (one waits for the other instead of a deadlock). */
function inKeyOrder(entities: readonly EntityInput[]): EntityInput[] {
  return [...entities].sort((a, b) => (a.ext_key < b.ext_key ? -1 : a.ext_key > b.ext_key ? 1 : 0));
}

/** Seed entities start..start+count-1 (seed.ts). */
function seedEntities(start: number, count: number): EntityInput[] {
  const entities: EntityInput[] = [];
  for (let n = start; n < start + count; n++) entities.push(seedEntity(n));
  return entities;
}

/**
 * A batch in ext_key order with its ids, written for COPY into `entities` with its segment's
 * builder (entitiesCopyDirect): what copyFresh takes. Undefined when a row's text has a token
 * termsOf does not know.
 */
function freshChunk(ordered: readonly EntityInput[], ids: string[]): EncodedChunk | undefined {
  const builder = new SegmentBuilder(ordered.length);
  const pieces = entitiesCopyDirect(ordered, ids, builder);
  return pieces && { pieces, builder, extKeys: ordered.map((e) => e.ext_key), ids };
}

/**
 * Seed entities start..start+count-1 as upsertMany copies a fresh batch (freshChunk; none of the
 * seed's texts has a token termsOf does not know). What the seed encoder's thread runs
 * (seed-encoder.ts).
 */
export function encodeSeedChunk(start: number, count: number): EncodedChunk | undefined {
  const ordered = inKeyOrder(seedEntities(start, count));
  return freshChunk(ordered, newIds(ID_PREFIX.entity, ordered.length));
}

/**
 * Sends data to a COPY ... FROM STDIN statement and waits for PostgreSQL to take it. The data is
 * made before the statement starts: a value that cannot be written fails the batch before the
 * connection is in COPY mode.
 */
function copyIn(client: PoolClient, sql: string, pieces: readonly Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.query(copyFrom(sql));
    stream.on('finish', () => resolve());
    stream.on('error', reject);
    for (const piece of pieces) stream.write(piece);
    stream.end();
  });
}

/** Runs a COPY ... TO STDOUT (FORMAT binary) of rows a build reads, and a boolean each, into `docs`. */
async function copyOut(client: PoolClient, sql: string, docs: CopyBinaryDocs): Promise<void> {
  const stream = client.query(copyTo(sql));
  for await (const chunk of stream) docs.push(chunk as Buffer);
  docs.end();
}

/**
 * Entities that are organisation records: OpenCorporates companies and SEC Form D issuers (the
 * connectors' ext_keys `opencorporates:<jurisdiction>/<number>` and `sec_edgar:<cik>`; the issuer's
 * related persons are `sec_edgar:<cik>:<name>`). Migration 0007's partial indexes have this predicate.
 */
export const ORGANIZATION_RECORD_SQL = `(ext_key LIKE 'opencorporates:%' OR ext_key ~ '^sec_edgar:[^:]+$')`;

const COLUMNS = 'id, lens, name, person_name, first_name, last_name, title, organization, location, country, domain, email, phone, details, sources';

/** COLUMNS of `e` (entities). */
const E_COLUMNS = COLUMNS.split(', ').map((c) => `e.${c}`).join(', ');
/**
 * A page's columns over `e` (entities, with its ctid `at` and xmin `v`), `t` (the asked id, its
 * address and the xmin of the version search keeps, if any) and `r` (the workspace's reveal of
 * it): PageEntity's, the jsonb as text. When the row is the version search keeps (`same`: read at
 * the asked address, same xmin), its columns are not written: search has them (RowVersions).
 */
const SAME_SQL = 'coalesce(t.v IS NOT NULL AND e.at = t.tid AND e.v = t.v, false)';
const PAGE_COLUMNS = `e.id, ${COLUMNS.split(', ').filter((c) => c !== 'id').map((c) => (c === 'details' || c === 'sources'
  ? `CASE WHEN ${SAME_SQL} THEN NULL ELSE e.${c}::text END AS ${c}_json`
  : `CASE WHEN ${SAME_SQL} THEN NULL ELSE e.${c} END AS ${c}`)).join(', ')}, ${SAME_SQL} AS same, e.v::text AS v,
  (r.id IS NOT NULL) AS revealed, r.email_status AS revealed_email_status`;

/** An entity of a page without its workspace's reveal state: what RowVersions keeps. */
type KeptEntity = Omit<PageEntity, 'revealed' | 'revealed_email_status'>;

/**
 * The rows of recent pages (at most `max`, the oldest dropped first), each with the version it
 * was read as: its ctid and xmin. A page's statement is told the version kept of each of its ids
 * and writes a row's columns only when the row it reads is another version (read elsewhere, or
 * another xmin): every UPDATE writes a new version, whose xmin is that of the transaction that
 * wrote it, so a row read at the same address with the same xmin is the row kept, column for
 * column. Pages are never wrong, whoever changed the row (an ingest, an UPDATE by hand, VACUUM
 * FULL); what is spared is PostgreSQL writing and search reading the row's columns, about 1 KB of
 * jsonb text a row (docs/benchmarks.md, 2026-11-30 14:34-15:13).
 */
export class RowVersions {
  private readonly rows = new Map<string, { tid: string; v: string; entity: KeptEntity }>();

  constructor(private readonly max: number) {}

  /** The version kept of `id` (its xmin and columns) when it was kept at `tid`, else undefined (the statement then writes the row). */
  at(id: string, tid: string | null): { v: string; entity: KeptEntity } | undefined {
    if (tid === null) return undefined;
    const kept = this.rows.get(id);
    return kept !== undefined && kept.tid === tid ? kept : undefined;
  }

  keep(id: string, tid: string, v: string, entity: KeptEntity): void {
    if (this.max <= 0) return;
    this.rows.delete(id);
    this.rows.set(id, { tid, v, entity });
    if (this.rows.size > this.max) this.rows.delete(this.rows.keys().next().value as string);
  }
}

/**
 * A row of a page read (readPages): the entity's (its columns null when the id has no row), the
 * page it is of (1-based, 0 for the statement's head slot), its place in the statement (k) and
 * `moved`, the row's ctid when it is not the one asked (read by primary key), else null; `v` its
 * xmin, and `same` when it is the version search keeps (its columns then null); the head slot
 * (k = 1) alone carries the generation and the workspaces' opportunity profiles.
 */
type PageRow = PageEntity & {
  same: boolean;
  v: string | null;
  generation: string | null;
  profiles: Record<string, OpportunityProfile> | null;
  page: number;
  k: string;
  moved: string | null;
};

/**
 * The entity's columns of a page row: without the read's columns and the workspace's reveal state
 * (what RowVersions keeps). Named one by one: a rest pattern copied the row's other properties
 * about ten times slower, per row of every page.
 */
function columnsOf(row: PageRow): KeptEntity {
  return {
    id: row.id, lens: row.lens, name: row.name, person_name: row.person_name, first_name: row.first_name, last_name: row.last_name,
    title: row.title, organization: row.organization, location: row.location, country: row.country, domain: row.domain,
    email: row.email, phone: row.phone, details_json: row.details_json, sources_json: row.sources_json,
  };
}

/** A page's entity: the columns kept or read, and the workspace's reveal state from the page row. */
function pageEntityOf(columns: KeptEntity, row: PageRow): PageEntity {
  return {
    id: columns.id, lens: columns.lens, name: columns.name, person_name: columns.person_name, first_name: columns.first_name,
    last_name: columns.last_name, title: columns.title, organization: columns.organization, location: columns.location,
    country: columns.country, domain: columns.domain, email: columns.email, phone: columns.phone,
    details_json: columns.details_json, sources_json: columns.sources_json,
    revealed: row.revealed, revealed_email_status: row.revealed_email_status,
  };
}

/** A page's rows in the order of their places `at` (as they were asked); the statement has no ORDER BY. */
function inOrder(rows: PageEntity[], at: number[]): PageEntity[] {
  let sorted = true;
  for (let i = 1; i < at.length && sorted; i++) sorted = at[i - 1] < at[i];
  if (sorted) return rows;
  return rows.map((row, i) => ({ row, at: at[i] })).sort((a, b) => a.at - b.at).map((x) => x.row);
}

/** A page read (readPages) as it is answered: its rows in the order they were asked. */
function finished(page: { generation: string; profile: OpportunityProfile | undefined; rows: PageEntity[]; moved: [string, string][]; at: number[] }): Page & { generation: string; moved: [string, string][] } {
  return { generation: page.generation, profile: page.profile, rows: inOrder(page.rows, page.at), moved: page.moved };
}

/** The row of t.id by primary key, with its ctid (`at`) and xmin (`v`). */
const BY_KEY_SQL = `(SELECT e.ctid AS at, e.xmin AS v, ${E_COLUMNS} FROM entities e WHERE e.id = t.id)`;
/**
 * The row of `entities` whose id is t.id, with its ctid (`at`), read where the index last saw it
 * (t.tid, a TID scan: one heap block, no index descent) when it is still there, else by primary key
 * (it moved: an UPDATE or upsert wrote a new version elsewhere, VACUUM FULL or CLUSTER rewrote
 * the table; or its address is not known, t.tid NULL). LIMIT 1 over UNION ALL: the Append runs the
 * primary-key read only when the TID read found nothing. A tuple at t.tid is the row only if it
 * is the version this snapshot sees (a TID scan checks visibility, and follows no HOT chain) and
 * its id is t.id (its slot may hold another row since a VACUUM): so a page is never wrong, at
 * worst read as before. Physical addresses are the same on a streaming replica (SearchReads).
 */
const ROW_AT_TID_OR_KEY_SQL = `(
       (SELECT e.ctid AS at, e.xmin AS v, ${E_COLUMNS} FROM entities e WHERE e.ctid = t.tid AND e.id = t.id)
       UNION ALL
       ${BY_KEY_SQL}
       LIMIT 1) e`;

@Injectable()
export class EntitiesRepository implements OnApplicationShutdown {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly reads: SearchReads,
    // absent in a writer made by hand (the restore drill's): no index of its own to keep current, no pages
    @Optional() private readonly memory?: MemorySearchIndex,
    @Optional() @Inject(SEARCH_CONFIG) config?: SearchConfig,
  ) {
    this.versions = new RowVersions(config?.rowCacheEntries ?? DEFAULT_ROW_CACHE);
    this.pages = new ReadBatch(
      (ask) => this.readPages([ask]).then(([page]) => page),
      (asks, answer) => this.readPages(asks, answer),
      100,
      config?.pageReadsAtOnce ?? DEFAULT_PAGE_READS_AT_ONCE,
    );
  }

  /** The rows of recent pages and their versions: a page's statement writes only the rows that changed. */
  private readonly versions: RowVersions;

  private get index(): MemorySearchIndex {
    if (!this.memory) throw new Error('EntitiesRepository made without a MemorySearchIndex reads no pages');
    return this.memory;
  }

  /**
   * Inserts or updates by ext_key (same source record -> same entity); one transaction per batch:
   * the rows go to a temporary table of the connection with COPY (binary format,
   * entitiesCopyBinary), and one INSERT moves them into `entities`. COPY is the cheapest way in for
   * PostgreSQL: a batch as one JSON array would be lexed twice per row (validation, then
   * extraction), the largest part of a seed's cost there. The temporary table is created by the
   * batch's transaction when the connection has none yet and emptied by every commit (ON COMMIT
   * DELETE ROWS). The index generation moves in the batch's transaction: pages ranked before it
   * are read again.
   *
   * The INSERT is first a plain one (INSERT_FROM_LOAD_SQL, the cheaper for keys not stored yet, as
   * a seed's and a first ingest's are): when a key of the batch is already stored (a chunk seeded
   * again, after a crash or by a retry, or an ingest that updates) it fails, the transaction goes
   * back to the savepoint taken before the load, and the batch is loaded again and upserted
   * (UPSERT_FROM_LOAD_SQL). Either way a batch's rows are in `entities` once, and counted once.
   *
   * Before all that, a batch whose terms search can make (entitiesCopyDirect, entity.ts termsOf)
   * is copied straight into `entities` (copyFresh): the cheapest way for keys not stored yet. When
   * a key is stored it fails having written nothing, and the batch takes the way above
   * (viaLoadTable), as do the DIRECT_PAUSE batches after it.
   */
  async upsertMany(entities: EntityInput[], options: { regenerable?: boolean } = {}): Promise<{ inserted: number; updated: number }> {
    if (entities.length === 0) return { inserted: 0, updated: 0 };
    const ordered = inKeyOrder(entities);
    const ids = newIds(ID_PREFIX.entity, ordered.length);
    // A batch that can be made again from nothing (the generated seed: `regenerable`) commits
    // without waiting for its WAL to reach the disk. A crash of PostgreSQL can then lose the last
    // such commits (never part of one: its rows, count and generation go or stay together); the
    // same search:seed run again writes them back. Ingested batches stay synchronous: their
    // source is the operator's file, and an acknowledged batch must survive.
    const durability = options.regenerable ? REGENERABLE : '';
    if (this.directPause > 0) this.directPause--;
    else if (await this.termsAgree()) {
      const chunk = freshChunk(ordered, ids);
      if (chunk && await this.copiedFresh(chunk, durability)) return { inserted: ordered.length, updated: 0 };
    }
    return this.viaLoadTable(ordered, ids, durability);
  }

  /** A batch (in ext_key order, with its new ids) written by the load table and INSERT ... SELECT, upserted when a key is stored (upsertMany). */
  private async viaLoadTable(ordered: readonly EntityInput[], ids: string[], durability: string): Promise<{ inserted: number; updated: number }> {
    const data = entitiesCopyBinary(ordered, ids);
    const client = await this.pool.connect();
    let builder = new SegmentBuilder(ordered.length);
    let docs = new CopyBinaryDocs(builder, true, true);
    let copying = false;
    let generation: bigint;
    try {
      await client.query(`BEGIN; SET LOCAL client_min_messages = warning;${durability} ${LOAD_TABLE_SQL}; SAVEPOINT ${FRESH_SAVEPOINT}`);
      await copyIn(client, COPY_LOAD_SQL, data);
      copying = true;
      try {
        await copyOut(client, INSERT_FROM_LOAD_SQL, docs);
      } catch (err) {
        // PostgreSQL ended the COPY with the error (the connection is at rest): a key already stored
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
        copying = false;
        await client.query(`ROLLBACK TO SAVEPOINT ${FRESH_SAVEPOINT}`);
        // the rows the failed INSERT returned before it failed are not the batch's
        builder = new SegmentBuilder(ordered.length);
        docs = new CopyBinaryDocs(builder, true, true);
        await copyIn(client, COPY_LOAD_SQL, data);
        copying = true;
        await copyOut(client, UPSERT_FROM_LOAD_SQL, docs);
      }
      copying = false;
      // the index's size (migration 0010) and generation (0011) move in the batch's transaction;
      // the batch's ext_keys are logged under that generation (migration 1764000017000) for the in-memory
      // indexes of search processes to read what changed, and entries older than an
      // hour go (looked at every 64th batch)
      const stamped = await client.query<{ generation: string }>(`WITH g AS (UPDATE entities_count SET n = n + ${docs.flaggedRows}, generation = generation + 1 RETURNING generation),
          logged AS (INSERT INTO entities_changes (generation, ext_keys) SELECT g.generation, ARRAY(SELECT ext_key FROM entities_load) FROM g RETURNING generation),
          pruned AS (DELETE FROM entities_changes c USING logged WHERE logged.generation % 64 = 0 AND c.created_at < now() - interval '1 hour')
        SELECT generation::text AS generation FROM logged`);
      // then committed on its own, once this process's index knows the generation is its batch's
      // (MemorySearchIndex.expect: a catch-up meanwhile waits for the segment instead of reading
      // the rows back); a round trip more a batch of up to 5,000 rows
      generation = BigInt(stamped.rows[0].generation);
      await this.commitExpected(client, generation);
    } catch (err) {
      // a COPY broken off leaves the connection mid-protocol: it is not asked anything more (release(err) closes it, and the server rolls back)
      if (!copying) await client.query('ROLLBACK').catch(() => undefined);
      client.release(err as Error);
      throw err;
    }
    client.release();
    // this process's index has the batch before the batch is answered, from the rows the upsert
    // returned (other processes read it within SEARCH_INDEX_POLL_MS, or at their next page read,
    // which finds the generation moved)
    await this.handOver(generation, () => builder.build());
    const inserted = docs.flaggedRows;
    return { inserted, updated: docs.rows - inserted };
  }

  /**
   * Seed entities start..start+count-1 (seed.ts), written as upsertMany writes them (`regenerable`).
   * A chunk that can be copied straight into `entities` is made and encoded on the seed encoder's
   * thread (seed-encoder.ts, when the service's main started one), so that this process's event
   * loop writes the chunks and answers pages meanwhile: a seed's generation and encoding were
   * most of search's thread, the seed's critical path (docs/decisions.md). Any other chunk (the
   * thread gave none, a key is stored, DIRECT_PAUSE, terms this server lexes otherwise) is
   * generated here and goes through upsertMany.
   */
  async seedRange(start: number, count: number): Promise<{ inserted: number; updated: number }> {
    if (this.directPause === 0 && this.encoder.available && await this.termsAgree()) {
      const chunk = await this.encoder.encode(start, count);
      if (chunk) {
        if (await this.copiedFresh(chunk, REGENERABLE)) return { inserted: count, updated: 0 };
        // a key of the chunk is stored: the chunk goes by the load table (copyFresh paused the COPY for the next DIRECT_PAUSE chunks)
        const ordered = inKeyOrder(seedEntities(start, count));
        return this.viaLoadTable(ordered, newIds(ID_PREFIX.entity, ordered.length), REGENERABLE);
      }
    }
    return this.upsertMany(seedEntities(start, count), { regenerable: true });
  }

  /** The seed encoder's thread (seedRange), stopped when the service stops. */
  private readonly encoder = new SeedEncoder();

  async onApplicationShutdown(): Promise<void> {
    await this.encoder.close();
  }

  /**
   * A fresh chunk copied straight into `entities` (copyFresh) and given to this process's index
   * (its builder, every row placed) before the batch is answered; false when a key of it is
   * stored (nothing written: the batch goes by the load table).
   */
  private async copiedFresh(chunk: EncodedChunk, durability: string): Promise<boolean> {
    const written = await this.copyFresh(chunk, durability);
    if (written === undefined) return false;
    await this.handOver(written, () => chunk.builder.build());
    return true;
  }

  /**
   * Commits a batch's transaction, which holds `generation` (its row of entities_count) until it
   * ends, having told this process's index the generation is this batch's: a catch-up meanwhile
   * waits for the batch's segment instead of reading its rows back (MemorySearchIndex.expect). A
   * COMMIT that fails abandons it (the index reads the generation from the table if it is there).
   */
  private async commitExpected(client: PoolClient, generation: bigint): Promise<void> {
    this.memory?.expect(generation);
    try {
      await client.query('COMMIT');
    } catch (err) {
      this.memory?.abandoned(generation);
      throw err;
    }
  }

  /**
   * Gives this process's index the batch it committed at `generation` (the segment `build` makes)
   * and waits until the index has it; a segment that cannot be made is abandoned (the index reads
   * the batch from the table).
   */
  private async handOver(generation: bigint, build: () => Segment): Promise<void> {
    if (!this.memory) return;
    let segment: Segment;
    try {
      segment = build();
    } catch (err) {
      this.memory.abandoned(generation);
      throw err;
    }
    this.memory.written(generation, segment);
    await this.memory.catchUp(generation);
  }

  /** Batches left to write by INSERT ... SELECT first, after a COPY into `entities` found a key already stored (DIRECT_PAUSE). */
  private directPause = 0;
  /** Whether termsOf gives what this server's parser gives (TERMS_PROBE), once known. */
  private termsChecked?: boolean;

  /** Whether termsOf makes the lexemes this server's parser makes for the shapes it knows: asked once (a locale that lowers I otherwise says no). */
  private async termsAgree(): Promise<boolean> {
    if (this.termsChecked === undefined) {
      // hand-written: PostgreSQL's text parser, no table
      const { rows } = await this.pool.query<{ lexemes: string[] }>(`SELECT tsvector_to_array(strip(to_tsvector('simple', $1))) AS lexemes`, [TERMS_PROBE]);
      const mine = termsOf(TERMS_PROBE, []);
      this.termsChecked = mine !== undefined && [...mine].sort().join(' ') === [...rows[0].lexemes].sort().join(' ');
    }
    return this.termsChecked;
  }

  /**
   * A batch whose terms were made here (entitiesCopyDirect) copied straight into `entities`, as
   * PostgreSQL takes rows most cheaply: no load table, no INSERT ... SELECT, no parser, no row sent
   * back (docs/decisions.md, "A fresh batch is copied straight into entities"). Its rows' addresses are
   * read back by a TID range scan of the blocks the COPY appended (and by id for a row it put in
   * free space before them), given to `builder`; the count, the generation and the change log move
   * as on the INSERT path, in the same transaction. The new generation, or undefined when a key of
   * the batch is already stored: the COPY then failed on the unique ext_key, nothing was written,
   * the connection is closed (a COPY cut off leaves it mid-protocol), and this batch and the next
   * DIRECT_PAUSE go by the INSERT path, which updates.
   */
  private async copyFresh({ pieces, builder, extKeys, ids }: EncodedChunk, durability: string): Promise<bigint | undefined> {
    const client = await this.pool.connect();
    let released = false;
    try {
      const began = await client.query(`BEGIN; SET LOCAL client_min_messages = warning;${durability} SELECT pg_relation_size('entities') / 8192 AS blocks`) as unknown as { rows: { blocks: string }[] }[];
      const blocks = began[began.length - 1].rows[0].blocks;
      try {
        await copyIn(client, COPY_ENTITIES_SQL, pieces);
      } catch (err) {
        released = true;
        client.release(err as Error);
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
        this.directPause = DIRECT_PAUSE;
        return undefined;
      }
      const { rows } = await client.query<{ generation: string | null; id: string | null; tid: string | null }>(WRITTEN_SQL, [`(${blocks},0)`, ids.length, extKeys]);
      const unplaced = new Map<string, number>();
      ids.forEach((id, a) => unplaced.set(id, a));
      let generation: string | null = null;
      const place = (id: string, tid: string) => {
        const a = unplaced.get(id);
        if (a === undefined) return;
        const [block, offset] = tidParts(tid);
        builder.placeAt(a, block, offset);
        unplaced.delete(id);
      };
      for (const row of rows) {
        if (row.id === null) generation = row.generation;
        else place(row.id, row.tid as string);
      }
      if (unplaced.size > 0) {
        const { rows: placed } = await client.query<{ id: string; tid: string }>(PLACED_SQL, [[...unplaced.keys()]]);
        for (const row of placed) place(row.id, row.tid);
      }
      if (generation === null || unplaced.size > 0) throw new Error(`search: a batch copied into entities was not all read back (${unplaced.size} of ${ids.length} rows)`);
      await this.commitExpected(client, BigInt(generation));
      client.release();
      released = true;
      return BigInt(generation);
    } catch (err) {
      if (!released) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(err as Error);
      }
      throw err;
    }
  }

  /**
   * The number of entities: one row kept by upsertMany (migration 0010), never count(*) over the
   * table, whose cost grows with the index (at 10M it outlived the admin CLI's deadline).
   */
  async count(): Promise<number> {
    // hand-written: one row of a one-row table (a bigint string), no row mapping
    const { rows } = await this.pool.query<{ n: string }>('SELECT n FROM entities_count');
    return Number(rows[0].n);
  }

  /**
   * One page of a lens: the ids ranked offset to offset + limit - 1 of the query in (rank_score
   * DESC, id) order (at most 40 pages * 25) from this process's in-memory index (MemorySearchIndex,
   * which keeps the ids of recent queries: SEARCH_RANKED_CACHE), then the page's rows by primary key
   * in one statement, which reads the generation too. `more`: the index has a match ranked after
   * the page (one id more is asked of it; that id's row is not read, a heap block less a page). A page whose generation is newer than the index's
   * (a batch another process wrote, not polled yet) brings the index up to it and is asked again,
   * so a page reflects every batch committed before it was read.
   *
   * The workspace's opportunity profile (investors' match_score) comes with the page, read by the
   * same statement: one PostgreSQL round trip per page instead of two.
   *
   * Pages are read where SearchReads says: a streaming replica when SEARCH_READ_DATABASE_URL is set.
   */
  async search(workspaceId: string, lens: Lens, q: string, conditions: Condition[], offset: number, limit: number): Promise<Page & { more: boolean }> {
    const index = this.index;
    const query = await index.queryOf(lens, q, conditions);
    const need = Math.min(offset + limit + 1, RANKED_MAX);
    for (let attempt = 0; ; attempt++) {
      const { generation, ids, tids } = index.top(query, need, offset);
      const page = await this.pageOf(workspaceId, ids.slice(0, limit), tids);
      // a page read on a streaming replica behind the index's source is served as read
      if (BigInt(page.generation) <= generation || attempt === 2) return { ...page, more: ids.length > limit };
      await index.catchUp(BigInt(page.generation));
    }
  }

  /**
   * The rows of the given ids in that order, with this workspace's reveal state, its opportunity
   * profile and the current generation. The pages asked in one turn of the event loop are read by
   * one statement (ReadBatch): under load, one round trip for the served pages that reached search
   * together instead of one each; and those asked while SEARCH_PAGE_READS_AT_ONCE statements run,
   * in the next.
   */
  private async pageOf(workspaceId: string, ids: string[], known: (string | null)[]): Promise<Page & { generation: string }> {
    // where each row was last seen (its ctid, as the index found the id: MemorySearchIndex.top), read there first (ROW_AT_TID_OR_KEY_SQL)
    const tids = ids.map((_, k) => known[k] ?? null);
    const page = await this.pages.load({ workspaceId, ids, tids }) as Page & { generation: string; moved: [string, string][] };
    // the rows read by key: their addresses kept for the next page that reads them (in the index,
    // and in the kept ids this page came from)
    for (const [id, tid] of page.moved) {
      const k = ids.indexOf(id);
      if (k >= 0) known[k] = tid;
      this.index.learnTid(id, tid);
    }
    return { generation: page.generation, profile: page.profile, rows: page.rows };
  }

  /** At most SEARCH_PAGE_READS_AT_ONCE statements at once: the pages asked meanwhile go in the next. */
  private readonly pages: ReadBatch<{ workspaceId: string; ids: string[]; tids: (string | null)[] }, Page & { generation: string; moved: [string, string][] }>;

  /**
   * Pages (workspace and ids each) in one statement and one snapshot: each id's row with this
   * workspace's reveal of it, the pages' workspaces' opportunity profiles and the generation.
   * A named statement, planned once per connection (its plan does not depend on the ids).
   *
   * Written so that every row streams out of nested loops as it is read: an id's row, then its
   * reveal by the (workspace_id, entity_id) key (LIMIT 1 keeps that a look-up per row: pulled up
   * into a join, the planner hashed the page's rows against a scan of every reveal). Rows are put
   * in their pages and in order here, not by the statement: an ORDER BY and a join of pages to
   * rows had PostgreSQL copy every row (about 1 KB of jsonb text each) into a hash table and two
   * sorts, about a sixth of its CPU a served page (docs/benchmarks.md, 2026-11-30 14:34-15:13).
   * The generation and the profiles (an InitPlan each, evaluated once; not a join, whose unknown
   * size once had PostgreSQL JIT-compile the statement) come on the statement's first row only,
   * a slot that reads no row (id NULL), so that a statement whose pages have no ids still brings
   * them. Each id is told the version of its row search keeps (RowVersions), if any.
   *
   * Rows are taken as they arrive (node-postgres parses each as its message comes in), and a page
   * whose every row has come (an id yields exactly one row: both joins are LEFT and LIMIT 1) is
   * given to `answer` at once, while PostgreSQL still reads the next pages' rows: the first pages
   * of a burst are answered without waiting for the last (docs/benchmarks.md, 2026-12-01).
   */
  private async readPages(
    asks: { workspaceId: string; ids: string[]; tids: (string | null)[] }[],
    answer?: (i: number, page: Page & { generation: string; moved: [string, string][] }) => void,
  ): Promise<(Page & { generation: string; moved: [string, string][] })[]> {
    const ids: (string | null)[] = [null];
    const pageOf: number[] = [0];
    const workspaces: (string | null)[] = [null];
    const tids: (string | null)[] = [null];
    const versions: (string | null)[] = [null];
    // the versions told to the statement, held here: another page's read may drop them from RowVersions meanwhile
    const kept: (KeptEntity | undefined)[] = [undefined];
    asks.forEach((ask, i) => {
      for (let k = 0; k < ask.ids.length; k++) {
        ids.push(ask.ids[k]);
        pageOf.push(i + 1);
        workspaces.push(ask.workspaceId);
        tids.push(ask.tids[k]);
        const version = this.versions.at(ask.ids[k], ask.tids[k]);
        versions.push(version?.v ?? null);
        kept.push(version?.entity);
      }
    });
    return this.reads.run((client) => new Promise((resolve, reject) => {
      // a read run again (SearchReads: on the primary, after the replica failed) starts over; pages answered already stay answered
      const pages = asks.map((ask) => ({
        generation: '', profile: undefined as OpportunityProfile | undefined, rows: [] as PageEntity[], moved: [] as [string, string][], at: [] as number[],
        left: ask.ids.length, answered: undefined as (Page & { generation: string; moved: [string, string][] }) | undefined,
      }));
      let head: PageRow | undefined;
      const before: PageRow[] = []; // rows that came before the head slot's (none, in the statement's order)
      let failed = false;
      const done = (i: number) => {
        const page = pages[i];
        if (page.answered) return;
        page.answered = finished(page);
        answer?.(i, page.answered);
      };
      const take = (row: PageRow) => {
        const page = pages[Number(row.page) - 1];
        if (!page) return;
        page.left--;
        if (row.id !== null) { // else an id with no row (deleted)
          const k = Number(row.k);
          let columns: KeptEntity | undefined;
          if (row.same) {
            columns = kept[k - 1];
            if (columns === undefined) throw new Error(`search: the row ${row.id} was read as the version kept, and none was told`);
          } else {
            columns = columnsOf(row);
            const tid = row.moved ?? tids[k - 1];
            if (tid !== null && row.v !== null) this.versions.keep(row.id, tid, row.v, columns);
          }
          page.rows.push(pageEntityOf(columns, row));
          page.at.push(k);
          if (row.moved !== null) page.moved.push([row.id, row.moved]);
        }
        if (page.left === 0) done(Number(row.page) - 1);
      };
      const headOf = (row: PageRow) => {
        if (row.generation === null) throw new Error('search: a page read brought no generation');
        head = row;
        const profiles = row.profiles ?? {};
        asks.forEach((ask, i) => {
          pages[i].generation = row.generation as string;
          pages[i].profile = profiles[ask.workspaceId] ?? undefined;
        });
        // a page with no ids is whole with the head alone
        pages.forEach((page, i) => page.left === 0 && done(i));
        for (const early of before.splice(0)) take(early);
      };
      const query = client.query(new Query<PageRow>({
        name: 'search-rows',
        text: `SELECT CASE WHEN t.k = 1 THEN (${GENERATION_SQL}) END AS generation,
           CASE WHEN t.k = 1 THEN (SELECT jsonb_object_agg(o.workspace_id, o.profile) FROM opportunity_profiles o WHERE o.workspace_id = ANY($1::text[])) END AS profiles,
           t.page, t.k, ${PAGE_COLUMNS}, NULLIF(e.at, t.tid) AS moved
         FROM unnest($2::text[], $3::int[], $4::text[], $5::tid[], $6::xid[]) WITH ORDINALITY AS t(id, page, workspace_id, tid, v, k)
         LEFT JOIN LATERAL ${ROW_AT_TID_OR_KEY_SQL} ON true
         LEFT JOIN LATERAL (SELECT rv.id, rv.email_status FROM reveals rv WHERE rv.workspace_id = t.workspace_id AND rv.entity_id = e.id LIMIT 1) r ON true`,
        // the arrays as literals written here (pgArrayLiteral): node-postgres' own writing of six arrays of 26 or more elements a page was about 5 % of search's CPU
        values: [pgArrayLiteral([...new Set(asks.map((a) => a.workspaceId))]), pgArrayLiteral(ids), pgArrayLiteral(pageOf), pgArrayLiteral(workspaces), pgArrayLiteral(tids), pgArrayLiteral(versions)],
      }));
      query.on('row', (row: PageRow) => {
        if (failed) return;
        try {
          if (Number(row.k) === 1) headOf(row);
          else if (head === undefined) before.push(row);
          else take(row);
        } catch (err) {
          // the rest of the rows are not taken; the statement runs to its end (the connection stays in step), then the read fails
          failed = true;
          reject(err);
        }
      });
      query.on('error', reject);
      query.on('end', () => {
        if (failed) return;
        if (head === undefined) return reject(new Error('search: a page read brought no generation'));
        resolve(pages.map((page) => page.answered ?? finished(page)));
      });
    }));
  }

  /**
   * The organisation record (an OpenCorporates company or an SEC Form D issuer, ORGANIZATION_RECORD_SQL)
   * of a company: the one with its domain, else one with its name (case-insensitive) and no domain
   * of its own when the company has one (two domains are two companies). The newest wins a tie.
   */
  async findOrganization(domain: string | null, name: string | null): Promise<EntityRow | undefined> {
    // hand-written: the predicate is that of migration 0007's partial indexes, so that they answer
    if (domain) {
      const { rows } = await this.pool.query<EntityRow>(
        `SELECT ${COLUMNS} FROM entities WHERE ${ORGANIZATION_RECORD_SQL} AND domain = $1 ORDER BY updated_at DESC LIMIT 1`, [domain],
      );
      if (rows[0]) return rows[0];
    }
    if (!name) return undefined;
    const { rows } = await this.pool.query<EntityRow>(
      `SELECT ${COLUMNS} FROM entities WHERE ${ORGANIZATION_RECORD_SQL} AND lower(organization) = lower($1) AND ($2::boolean OR domain IS NULL)
        ORDER BY updated_at DESC LIMIT 1`,
      [name, domain === null],
    );
    return rows[0];
  }

  async get(id: string): Promise<EntityRow | undefined> {
    // hand-written: the same columns as every other read of this repository (COLUMNS)
    const { rows } = await this.pool.query<EntityRow>(`SELECT ${COLUMNS} FROM entities WHERE id = $1`, [id]);
    return rows[0];
  }
}
