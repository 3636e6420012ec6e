import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { PG_POOL, runPeriodically, withDeadline } from '@app/platform';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';
import { SearchReads } from '../search/search-reads.store';
import type { Condition } from './entities.repository';
import { TokenShape, tokenShape } from './entity';
import { IndexQuery, MemoryIndex, Segment, SegmentBuilder } from './memory-index';

/**
 * How long after `expect` a batch of this process's counts as being committed: a catch-up to a
 * target waits for it that long at most, the periodic look leaves it to its writer that long;
 * then it is read from the table as any other process's batch. A COMMIT's round trip, with room
 * for a loaded machine.
 */
const COMING_WAIT_MS = 2000;
/** The most generations the periodic look checks one by one for being this process's own (allOwn). */
const COMING_SPAN = 1024n;

/** Texts whose lexemes PostgreSQL gave, kept per process (most recently used last). */
const LEXEME_CACHE = 4096;
/** A text of ASCII letters and digits in words of at most 100 characters: its lexemes are its words in lower case. */
const PLAIN_WORDS = /^[A-Za-z0-9]{1,100}( +[A-Za-z0-9]{1,100})*$/;
/** An ASCII word (PLAIN_WORDS') whose row holds the lexemes PostgreSQL's parser makes of it, not the word lowered: one with a capital I that tokenShape does not know (`6E75I`). */
const parsedApart = (word: string): boolean => word.includes('I') && tokenShape(word) === TokenShape.Unknown;

/** The signature that opens PostgreSQL's binary COPY format: "PGCOPY\n\377\r\n\0". */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Reads the rows of `COPY (SELECT id, lens, rank_score, num_min::float8, num_max::float8, terms
 * ...) TO STDOUT (FORMAT binary)` into a SegmentBuilder as they stream in, chunk by chunk: ids and
 * lexemes go from the chunk's bytes into the builder's arenas, and no string or object is made
 * per row (but the lens). A tsvector's binary form (tsvectorsend) is its lexeme count (int32),
 * then per lexeme its bytes, a NUL, the count of its positions (uint16) and the positions. With
 * `tid`, a seventh column is the row's ctid in `entities` (tidsend: block uint32, offset uint16),
 * kept as the document's heap address (Segment.tidBlocks).
 */
export class CopyBinaryDocs {
  private carry?: Buffer;
  private header = false;
  done = false;
  rows = 0;
  /** Rows whose last field is true (with `flagged`: an upsert's RETURNING of `xmax = 0`, the rows it inserted). */
  flaggedRows = 0;
  private readonly fields: number;
  /** The field of the ctid (-1: none), and of the flag (-1: none). */
  private readonly tidField: number;
  private readonly flagField: number;

  /**
   * `flagged`: each row has a last field, a boolean, counted in flaggedRows: an upsert's
   * `xmax = 0`, whose rows are marked fresh in the segment (their ids are new to every index).
   * `tid`: each row's seventh field is its ctid in `entities` (before the flag).
   */
  constructor(private readonly builder: SegmentBuilder, flagged = false, tid = false) {
    this.tidField = tid ? 6 : -1;
    this.flagField = flagged ? (tid ? 7 : 6) : -1;
    this.fields = 6 + (tid ? 1 : 0) + (flagged ? 1 : 0);
  }

  push(chunk: Buffer): void {
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    let at = 0;
    if (!this.header) {
      if (buf.length < 19) {
        this.carry = buf;
        return;
      }
      if (!buf.subarray(0, 11).equals(COPY_SIGNATURE)) throw new Error('not PostgreSQL binary COPY data');
      if (buf.length < 19 + buf.readUInt32BE(15)) {
        this.carry = buf;
        return;
      }
      at = 19 + buf.readUInt32BE(15);
      this.header = true;
    }
    while (!this.done) {
      const next = this.row(buf, at);
      if (next < 0) break;
      at = next;
    }
    this.carry = at < buf.length && !this.done ? Buffer.from(buf.subarray(at)) : undefined;
  }

  /** Ends the stream: every row read and the trailer seen. */
  end(): void {
    if (!this.done || this.carry) throw new Error(`binary COPY data ended inside a row (after ${this.rows} rows)`);
  }

  /** Reads the row at `at` into the builder; its end, or -1 if the buffer does not hold all of it. */
  private row(buf: Buffer, at: number): number {
    if (at + 2 > buf.length) return -1;
    const fields = buf.readInt16BE(at);
    if (fields === -1) {
      this.done = true;
      return at + 2;
    }
    if (fields !== this.fields) throw new Error(`binary COPY row of ${fields} fields, ${this.fields} expected`);
    // where each field starts (after its length) and its length (-1: NULL)
    const starts = this.starts;
    const lengths = this.lengths;
    let p = at + 2;
    for (let f = 0; f < fields; f++) {
      if (p + 4 > buf.length) return -1;
      const length = buf.readInt32BE(p);
      starts[f] = p + 4;
      lengths[f] = length;
      p += 4 + Math.max(0, length);
      if (p > buf.length) return -1;
    }
    if (lengths[0] < 0 || lengths[1] < 0 || lengths[2] !== 4 || lengths[5] < 4) throw new Error('binary COPY row with a NULL id, lens, rank or terms');
    const flag = this.flagField;
    const tid = this.tidField;
    if (flag >= 0 && lengths[flag] !== 1) throw new Error('binary COPY row without its boolean');
    if (tid >= 0 && lengths[tid] !== 6) throw new Error('binary COPY row without its ctid');
    const lens = buf.toString('utf8', starts[1], starts[1] + lengths[1]);
    // with `flagged`, an upsert's inserted row: its id was made for it, no index holds it yet
    const inserted = flag >= 0 && buf[starts[flag]] !== 0;
    const block = tid >= 0 ? buf.readUInt32BE(starts[tid]) : 0;
    const offset = tid >= 0 ? buf.readUInt16BE(starts[tid] + 4) : 0;
    // no closure made per row (the bundle names every closure it makes: a property write each)
    const numMin = lengths[3] < 0 ? NaN : buf.readDoubleBE(starts[3]);
    const numMax = lengths[4] < 0 ? NaN : buf.readDoubleBE(starts[4]);
    this.builder.startDoc(buf, starts[0], starts[0] + lengths[0], buf.readInt32BE(starts[2]), numMin, numMax, lens, inserted, block, offset);
    const end = starts[5] + lengths[5];
    let q = starts[5] + 4;
    for (let n = buf.readInt32BE(starts[5]); n > 0; n--) {
      const from = q;
      while (q < end && buf[q] !== 0) q++;
      if (q + 3 > end) throw new Error('binary COPY tsvector cut short');
      this.builder.term(buf, from, q);
      q += 3 + 2 * ((buf[q + 1] << 8) | buf[q + 2]);
    }
    if (q !== end) throw new Error('binary COPY tsvector of a length other than its lexemes');
    this.builder.endDoc();
    this.rows++;
    if (inserted) this.flaggedRows++;
    return p;
  }

  private readonly starts = new Int32Array(8);
  private readonly lengths = new Int32Array(8);
}

/**
 * Builds an index of every entity from one snapshot: the generation and what a ranking reads of
 * each row of `entities`, with its ctid (where a page reads it), streamed as binary COPY, read as
 * it comes (PostgreSQL sends while this process reads). The documents are numbered in
 * (rank_score DESC, id) order by the builder, so PostgreSQL reads the table in its own order and
 * sorts nothing.
 */
export async function buildIndex(client: PoolClient): Promise<MemoryIndex> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let copying = false;
  try {
    const { rows } = await client.query<{ generation: string; n: string }>('SELECT generation::text AS generation, n::text AS n FROM entities_count');
    const builder = new SegmentBuilder(Number(rows[0].n));
    const docs = new CopyBinaryDocs(builder, false, true);
    copying = true;
    const stream = client.query(copyTo('COPY (SELECT id, lens, rank_score, num_min::float8, num_max::float8, terms, ctid FROM entities) TO STDOUT (FORMAT binary)'));
    for await (const chunk of stream) docs.push(chunk as Buffer);
    copying = false;
    docs.end();
    await client.query('COMMIT');
    return new MemoryIndex([builder.build()], BigInt(rows[0].generation));
  } catch (err) {
    // a COPY broken off leaves the connection mid-protocol: it is not asked anything more (the
    // caller's release(err) closes it, and the server rolls back)
    if (!copying) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * The in-memory index of this search process (docs/decisions.md, "Search in memory"). PostgreSQL stays the source of truth: the index is built from it at start-up (the
 * process is not ready, nor in its NATS queue group, before: Nest awaits onModuleInit), and kept
 * at the index generation by reading what the batches since wrote (entities_changes): after a
 * batch this process wrote, when a page read finds a newer generation, and every
 * SEARCH_INDEX_POLL_MS for batches other processes wrote.
 */
@Injectable()
export class MemorySearchIndex implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('MemorySearchIndex');
  private index = new MemoryIndex();
  private catchingUp?: Promise<void>;
  private stopPolling?: () => void;
  private readonly lexemeCache = new Map<string, string[]>();

  constructor(@Inject(PG_POOL) private readonly pool: Pool, @Inject(SEARCH_CONFIG) private readonly config: SearchConfig, private readonly reads: SearchReads) {}

  async onModuleInit(): Promise<void> {
    await this.rebuild();
    this.stopPolling = runPeriodically(() => this.catchUp(), this.config.indexPollMs);
  }

  onApplicationShutdown(): void {
    this.stopPolling?.();
  }

  /**
   * Serves from `index`, built and timed by the caller (`npm run bench -- search-index` measures
   * queryOf and top on the index whose build it measured) instead of one this store built.
   */
  serve(index: MemoryIndex): void {
    this.index = index;
  }

  /** The generation the index reflects. */
  get generation(): bigint {
    return this.index.generation;
  }

  /** Builds the index again from the table, and logs what it took. */
  private async rebuild(): Promise<void> {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    this.index = await this.reads.run((client) => buildIndex(client));
    this.state++;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    const memory = process.memoryUsage();
    this.logger.log(`index built: ${this.index.size} entities at generation ${this.index.generation} in ${(ms / 1000).toFixed(1)} s `
      + `(cpu ${((used.user + used.system) / 1e6).toFixed(1)} s), typed arrays ${(this.index.bytes / 1048576).toFixed(0)} MB, `
      + `rss ${(memory.rss / 1048576).toFixed(0)} MB, heap ${(memory.heapUsed / 1048576).toFixed(0)} MB, external ${(memory.external / 1048576).toFixed(0)} MB`);
  }

  /**
   * Brings the index to the newest generation (at least `target` when given, as far as the
   * database it reads has it), once at a time: callers that come while one runs wait for it and
   * run one more if it did not reach their target.
   */
  async catchUp(target?: bigint): Promise<void> {
    for (;;) {
      if (target !== undefined && this.index.generation >= target) return;
      const running = this.catchingUp;
      if (!running) break;
      await running.catch(() => undefined);
      if (target === undefined) return;
    }
    this.catchingUp = this.readChanges(target).finally(() => { this.catchingUp = undefined; });
    return this.catchingUp;
  }

  /**
   * A batch of this process's took `generation` in its transaction and is committing it: until
   * `written` or `abandoned` says how that ended, a catch-up that reaches the generation does not
   * read the batch back from the table (its writer is about to hand it over). The periodic look
   * (no target) leaves it to the writer; a catch-up to a target at or past it waits for it; either
   * only until COMING_WAIT_MS after `expect`. Without this, a look that ran between a batch's
   * commit and its writer's `written` read the batch's rows back and deleted each id from every
   * segment: 27 s of a 10M seed's 279 s of search's thread, with the rows read again in
   * PostgreSQL (docs/benchmarks.md, 2026-12-02 05:59-07:07).
   */
  expect(generation: bigint): void {
    if (generation <= this.index.generation || this.coming.has(generation)) return;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => { settle = resolve; });
    this.coming.set(generation, { settled, settle, since: performance.now() });
  }

  /**
   * A batch this process wrote, committed at `generation`: its entities as the upsert left them
   * (its RETURNING, built into a segment as it streamed in). The next catch-up applies it without
   * reading it back from PostgreSQL once every generation before it is in the index; a batch of
   * another process in between is read from the table as before, with this one.
   */
  written(generation: bigint, segment: Segment): void {
    if (generation > this.index.generation) this.own.set(generation, segment);
    this.settle(generation);
  }

  /** The batch `expect` was told of did not commit, or its segment will not come: its generation is read from the table if it is there. */
  abandoned(generation: bigint): void {
    this.settle(generation);
  }

  private settle(generation: bigint): void {
    this.coming.get(generation)?.settle();
    this.coming.delete(generation);
  }

  /** Batches this process wrote and the index does not have yet, by generation (written). */
  private readonly own = new Map<bigint, Segment>();
  /** Generations of this process's batches being committed, whose segments have not come yet (expect). */
  private readonly coming = new Map<bigint, { settled: Promise<void>; settle: () => void; since: number }>();

  /**
   * The generation's batch of this process's, if it is being committed and was told of less than
   * COMING_WAIT_MS ago: one older is read from the table as another process's would be (a COMMIT
   * that hangs does not stop the index from following the other writers' batches).
   */
  private comingNow(generation: bigint): { settled: Promise<void>; since: number } | undefined {
    const coming = this.coming.get(generation);
    return coming && performance.now() - coming.since < COMING_WAIT_MS ? coming : undefined;
  }

  /** Applies this process's own batches that follow the index's generation one by one. */
  private applyOwn(): void {
    for (let next = this.index.generation + 1n, segment = this.own.get(next); segment; next++, segment = this.own.get(next)) {
      this.own.delete(next);
      this.index.add(segment);
      this.index.generation = next;
      this.state++;
    }
  }

  /** Forgets own batches the index has by now (read from the table, or a rebuild), and stops waiting for those still coming. */
  private dropOwn(): void {
    for (const generation of this.own.keys()) if (generation <= this.index.generation) this.own.delete(generation);
    for (const generation of [...this.coming.keys()]) if (generation <= this.index.generation) this.settle(generation);
  }

  /**
   * Whether every generation in (from, to] is this process's, written or coming: nothing there
   * for the periodic look to read (at most COMING_SPAN of them are looked at).
   */
  private allOwn(from: bigint, to: bigint): boolean {
    if (to - from > COMING_SPAN) return false;
    for (let g = from + 1n; g <= to; g++) if (!this.own.has(g) && !this.comingNow(g)) return false;
    return true;
  }

  /**
   * Reads, in one snapshot, the generation and every entity the batches after the index's wrote,
   * and applies them. A generation missing from the log (pruned, the process was behind for
   * longer than it keeps) means a rebuild.
   */
  private async readChanges(target?: bigint): Promise<void> {
    for (;;) {
      this.applyOwn();
      // this process's own batches were all the target asked for: nothing to read
      if (target !== undefined && this.index.generation >= target) return;
      // the next generation is a batch of this process's being committed (expect): the periodic
      // look leaves it to its writer, a catch-up to a target waits for it (then applies it), and
      // reads it back only when it did not come in time or was abandoned
      const next = this.comingNow(this.index.generation + 1n);
      if (!next) break;
      if (target === undefined) return;
      // (`settled` never rejects: a rejection is the deadline's)
      if (!(await withDeadline(next.settled, COMING_WAIT_MS - (performance.now() - next.since)).then(() => true, () => false))) break;
    }
    const from = this.index.generation;
    const read = await this.reads.run(async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      let copying = false;
      try {
        const { rows: [head] } = await client.query<{ generation: string; batches: number }>(
          `SELECT c.generation::text AS generation, (SELECT count(*)::int FROM entities_changes l WHERE l.generation > $1 AND l.generation <= c.generation) AS batches
             FROM entities_count c`, [String(from)]);
        const to = BigInt(head.generation);
        // nothing new (complete as it is), or a batch missing from the log (complete only by a rebuild)
        const behind = to > from;
        // the periodic look, where every batch since is this process's (written or coming): its writers apply them
        if (behind && target === undefined && this.allOwn(from, to)) {
          await client.query('COMMIT');
          return { to: from, complete: true };
        }
        if (!behind || BigInt(head.batches) !== to - from) {
          await client.query('COMMIT');
          return { to, complete: !behind };
        }
        // the entities as they are now (a key written by several of these batches is read once),
        // streamed as binary COPY into a segment, as a build reads them (the generations
        // are bigints this process read: COPY takes no parameters)
        // (and each row's ctid: where a page reads it, MemoryIndex.tidsOf)
        const builder = new SegmentBuilder();
        const docs = new CopyBinaryDocs(builder, false, true);
        copying = true;
        const stream = client.query(copyTo(`COPY (SELECT id, lens, rank_score, num_min::float8, num_max::float8, terms, ctid FROM entities
            WHERE ext_key IN (SELECT unnest(ext_keys) FROM entities_changes WHERE generation > ${from} AND generation <= ${to})) TO STDOUT (FORMAT binary)`));
        for await (const chunk of stream) docs.push(chunk as Buffer);
        copying = false;
        docs.end();
        await client.query('COMMIT');
        return { to, complete: true, segment: builder.build() };
      } catch (err) {
        // a COPY broken off leaves the connection mid-protocol: it is not asked anything more
        // (SearchReads.run closes it, and the server rolls back)
        if (!copying) await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
    if (!read.complete) {
      this.logger.warn(`generations ${from + 1n}..${read.to} are not all in entities_changes: building the index again`);
      await this.rebuild();
      this.dropOwn();
      return;
    }
    if (read.to <= this.index.generation || !read.segment) return;
    this.index.add(read.segment);
    this.index.generation = read.to;
    this.state++;
    this.dropOwn();
  }

  /**
   * The query of a lens, a text and the conditions of conditionsFor: words as PostgreSQL's
   * plainto_tsquery('simple') makes them (lexemes), facets as the terms they are.
   */
  async queryOf(lens: string, q: string, conditions: readonly Condition[]): Promise<IndexQuery> {
    const all: string[] = [];
    const anyOf: string[][] = [];
    const numeric: IndexQuery['numeric'][number][] = [];
    let none = false;
    const words = async (text: string) => {
      const lexemes = await this.lexemes(text);
      // a text without a word matches nothing (`terms @@ ''::tsquery` is false)
      if (lexemes.length === 0) none = true;
      all.push(...lexemes);
    };
    for (const match of conditions) {
      if ('facets' in match) anyOf.push(match.facets.map((f) => `F:${f}`));
      else if ('words' in match) await words(match.words);
      else numeric.push(match);
    }
    if (q.trim() !== '') await words(q);
    return { lens, all, anyOf, numeric, none };
  }

  /**
   * The lexemes of a text as a row's `terms` holds them: for ASCII words, the words in lower case;
   * for any other text, PostgreSQL's (to_tsvector('simple'), kept per text). A word with a capital
   * I that PostgreSQL's parser reads as a number in scientific notation and a word after it
   * (`6E75I`: `6e75` and `i`) is not a plain word where rows are written (entity.ts plainWordEnd,
   * tokenShape): its row holds the parser's lexemes, so a text with one is PostgreSQL's too.
   */
  async lexemes(text: string): Promise<string[]> {
    const trimmed = text.trim();
    if (trimmed === '') return [];
    if (PLAIN_WORDS.test(trimmed)) {
      const words = trimmed.split(/ +/);
      if (!words.some(parsedApart)) return [...new Set(words.map((w) => w.toLowerCase()))];
    }
    const kept = this.lexemeCache.get(text);
    if (kept) {
      this.lexemeCache.delete(text);
      this.lexemeCache.set(text, kept);
      return kept;
    }
    // hand-written: PostgreSQL's text parser, no table
    const { rows } = await this.pool.query<{ lexemes: string[] }>(`SELECT tsvector_to_array(to_tsvector('simple', $1)) AS lexemes`, [text]);
    this.lexemeCache.set(text, rows[0].lexemes);
    while (this.lexemeCache.size > LEXEME_CACHE) this.lexemeCache.delete(this.lexemeCache.keys().next().value as string);
    return rows[0].lexemes;
  }

  /**
   * The ids of the matches ranked `offset` to `limit` - 1 (the page's), and the generation they
   * are of: only those are made strings. The ids of the last SEARCH_RANKED_CACHE (query, offset)
   * pairs are kept with the index they were read from (a served page costs a look-up); a catch-up
   * or a rebuild makes a new index state, which reads again. `tids`: the ids' heap addresses in
   * `entities` (null where not known), the kept array itself: a page writes there the address of
   * a row it found elsewhere (EntitiesRepository.pageOf), for the next page of the same entry.
   */
  top(query: IndexQuery, limit: number, offset = 0): { generation: bigint; ids: string[]; tids: (string | null)[] } {
    const key = this.config.rankedCacheEntries > 0 ? `${offset} ${JSON.stringify(query)}` : undefined;
    const kept = key === undefined ? undefined : this.ranked.get(key);
    const want = Math.max(0, limit - offset);
    if (kept && kept.state === this.state && (kept.ids.length >= want || kept.complete)) {
      this.ranked.delete(key as string);
      this.ranked.set(key as string, kept);
      return { generation: this.index.generation, ids: kept.ids.slice(0, want), tids: kept.tids };
    }
    const tids: (string | null)[] = [];
    const ids = this.index.search(query, limit, offset, tids);
    if (key !== undefined) {
      this.ranked.delete(key);
      this.ranked.set(key, { state: this.state, ids, tids, complete: ids.length < want });
      while (this.ranked.size > this.config.rankedCacheEntries) this.ranked.delete(this.ranked.keys().next().value as string);
    }
    return { generation: this.index.generation, ids, tids };
  }

  /** The heap address in `entities` last seen of each id's row (tid text), null where not known: MemoryIndex.tidsOf (tests). */
  tidsOf(ids: readonly string[]): (string | null)[] {
    return this.index.tidsOf(ids);
  }

  /** Keeps where an id's row was found by a page read by primary key: MemoryIndex.learnTid. */
  learnTid(id: string, tid: string): void {
    this.index.learnTid(id, tid);
  }

  /** Moves with every change of the index (a catch-up that applied something, a rebuild). */
  private state = 0;
  private readonly ranked = new Map<string, { state: number; ids: string[]; tids: (string | null)[]; complete: boolean }>();

  /** What the index holds (for logs and tests). */
  stats(): { entities: number; segments: number; generation: bigint; bytes: number } {
    return { entities: this.index.size, segments: this.index.segmentCount, generation: this.index.generation, bytes: this.index.bytes };
  }
}
