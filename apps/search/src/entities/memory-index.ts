/**
 * The in-process inverted index of SEARCH_INDEX=memory (issue 37, docs/decisions.md "Search in
 * memory"): posting lists of rank-ordered document numbers, in segments as Lucene keeps them.
 *
 * A segment is immutable but for its deleted-documents map: its documents are numbered 0..n-1 in
 * (lens, rank_score DESC, id) order, so a lens is a range of documents (every query is of one lens,
 * and walks that range alone) and in it a posting list (a sorted Uint32Array) lists a term's
 * documents best first, and a conjunction walked from the start of the lists (leapfrog, each list galloping
 * to the next candidate) finds the best matches first and stops when it has as many as the page
 * needs: the cost of a query follows the page it asks, not the length of its lists. A write
 * (an ingested batch) becomes a new small segment; the older version of every document it holds
 * is marked deleted where it was. Segments of one size tier are merged once there are
 * MERGE_FACTOR of them (a merge keeps the order: it interleaves the segments by rank, lens by lens), so a query
 * walks O(log n) segments and takes the best of their heads.
 */

/** What the index knows of an entity: its lens, rank, numeric filter columns and `terms` (a row of `entities`). */
export interface IndexDoc {
  id: string;
  lens: string;
  rank: number;
  numMin: number | null;
  numMax: number | null;
  /** The lexemes of `terms`: words and 'F:' || facet (entities.repository.ts TERMS_SQL). */
  terms: readonly string[];
}

/** A numeric condition on one column of a document (conditionsFor's num_min/num_max filters). */
export interface NumericCondition {
  column: 'num_min' | 'num_max';
  op: '>=' | '<=' | '<';
  value: number;
}

/**
 * A query: the lens, terms every match has, groups of terms of which a match has at least one (the
 * values of one facet key), numeric conditions; `none` when it can match nothing (free text
 * without a word).
 */
export interface IndexQuery {
  lens: string;
  all: readonly string[];
  anyOf: readonly (readonly string[])[];
  numeric: readonly NumericCondition[];
  none?: boolean;
}

/** Segments of one tier merge when there are this many (tier: floor(log_MERGE_FACTOR(size / SMALLEST))). */
export const MERGE_FACTOR = 8;
const SMALLEST = 1024;

const NO_DOC = 0xffffffff;
/** A term in at least one document in DENSE of a segment is read as a bitmap (Segment.bitmap). */
const DENSE = 32;
/**
 * A segment of at least this many documents has the bitmaps of all its dense terms made ahead
 * (MemoryIndex.scheduleWarm), in slices while no merge runs, instead of at the first query that
 * asks each: the first burst of new queries on a 10M index made ~25 bitmaps of a million postings
 * each in search's one thread, and every page of the burst waited for them (docs/benchmarks.md,
 * 2026-11-30 18:20-18:33). A smaller segment's lists are short enough to read at the query.
 */
const WARM_MIN_DOCS = 16_384;

/** FNV-1a over bytes [from, to). */
function hashBytes(src: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ src[i], 0x01000193);
  return h >>> 0;
}

/** A growable Uint32Array. */
class U32 {
  a: Uint32Array;
  n = 0;
  constructor(capacity = 1024) {
    this.a = new Uint32Array(Math.max(16, capacity));
  }
  /** One over `a`, its first `n` used. */
  static of(a: Uint32Array, n: number): U32 {
    const u = new U32(16);
    u.a = a;
    u.n = n;
    return u;
  }

  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(Math.ceil(this.a.length * 1.5));
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/** The smallest power of two of at least `n` slots, at least 16. */
const slotsFor = (n: number): number => {
  let slots = 16;
  while (slots < n) slots *= 2;
  return slots;
};

/**
 * Byte strings numbered 0..size-1 (ids, or the terms of a dictionary): their bytes one after the
 * other in one arena, the end of each in `ends`, and an open-addressing table of number + 1 per
 * slot (0 empty, at most two thirds full) for look-ups. No JavaScript string or object per entry:
 * a million ids or terms are three typed arrays (docs/decisions.md, "Search in memory").
 */
export class ByteTable {
  bytes: Uint8Array;
  used = 0;
  ends: Uint32Array;
  size = 0;
  slots: Uint32Array;
  /** A Buffer over `bytes`, for decoding and comparing slices natively. */
  private view: Buffer;

  constructor(capacity = 1024, byteCapacity = capacity * 16, indexed = true) {
    this.bytes = new Uint8Array(Math.max(64, byteCapacity));
    this.view = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.ends = new Uint32Array(Math.max(16, capacity));
    this.slots = new Uint32Array(indexed ? slotsFor(Math.ceil((capacity * 3) / 2)) : 0);
  }

  start(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1];
  }

  /** Entry i as text. */
  text(i: number): string {
    return this.view.toString('utf8', this.start(i), this.ends[i]);
  }

  /** Entry i of this table against entry j of `other`, in byte order (negative: i first). */
  compare(i: number, other: ByteTable, j: number): number {
    return this.view.compare(other.view, other.start(j), other.ends[j], this.start(i), this.ends[i]);
  }

  /** Whether entry i holds src[from..to). */
  equals(i: number, src: Uint8Array, from: number, to: number): boolean {
    const s = this.start(i);
    if (this.ends[i] - s !== to - from) return false;
    const bytes = this.bytes;
    for (let k = 0; k < to - from; k++) if (bytes[s + k] !== src[from + k]) return false;
    return true;
  }

  /** The first entry holding src[from..to) that `accept` takes (by the table), or -1; `hash` its hashBytes, when known. */
  find(src: Uint8Array, from: number, to: number, accept?: (i: number) => boolean, hash = hashBytes(src, from, to)): number {
    const slots = this.slots;
    if (slots.length === 0) return -1;
    const mask = slots.length - 1;
    for (let s = hash & mask; slots[s] !== 0; s = (s + 1) & mask) {
      const i = slots[s] - 1;
      if (this.equals(i, src, from, to) && (!accept || accept(i))) return i;
    }
    return -1;
  }

  /** The number of src[from..to), a new one if the table has none. */
  intern(src: Uint8Array, from: number, to: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    let s = hashBytes(src, from, to) & mask;
    for (; slots[s] !== 0; s = (s + 1) & mask) {
      const i = slots[s] - 1;
      if (this.equals(i, src, from, to)) return i;
    }
    const i = this.append(src, from, to);
    if ((this.size * 3) / 2 > slots.length) this.reslot(slots.length * 2);
    else slots[s] = i + 1;
    return i;
  }

  /** Adds src[from..to) as a new entry, unindexed (`reslot` indexes every entry). */
  append(src: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (this.used + length > this.bytes.length) {
      const bytes = new Uint8Array(Math.max(this.used + length, Math.ceil(this.bytes.length * 1.5)));
      bytes.set(this.bytes.subarray(0, this.used));
      this.bytes = bytes;
      this.view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    if (this.size === this.ends.length) {
      const ends = new Uint32Array(Math.ceil(this.ends.length * 1.5));
      ends.set(this.ends);
      this.ends = ends;
    }
    this.bytes.set(src.subarray(from, to), this.used);
    this.used += length;
    this.ends[this.size] = this.used;
    return this.size++;
  }

  /** Indexes every entry in a table of `slots` slots (a power of two). */
  reslot(slots = slotsFor(Math.ceil((this.size * 3) / 2))): void {
    const table = new Uint32Array(slots);
    const mask = slots - 1;
    for (let i = 0; i < this.size; i++) {
      let s = hashBytes(this.bytes, this.start(i), this.ends[i]) & mask;
      while (table[s] !== 0) s = (s + 1) & mask;
      table[s] = i + 1;
    }
    this.slots = table;
  }

  /** Drops the room kept for growth: the arena and the ends to their use, the table to two thirds full. */
  trim(): this {
    if (this.bytes.length !== this.used) {
      this.bytes = this.bytes.slice(0, this.used);
      this.view = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    }
    if (this.ends.length !== this.size) this.ends = this.ends.slice(0, this.size);
    const slots = slotsFor(Math.ceil((this.size * 3) / 2));
    if (this.slots.length !== slots) this.reslot(slots);
    return this;
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.ends.byteLength + this.slots.byteLength;
  }

  /** The table as structured clone takes it (its arrays' buffers are `transfer`red: this table is not used after). */
  parts(transfer: ArrayBuffer[]): ByteTableParts {
    transfer.push(this.bytes.buffer as ArrayBuffer, this.ends.buffer as ArrayBuffer, this.slots.buffer as ArrayBuffer);
    return { bytes: this.bytes, used: this.used, ends: this.ends, size: this.size, slots: this.slots };
  }

  /** A table again from its parts (another thread's). */
  static fromParts(parts: ByteTableParts): ByteTable {
    const table = new ByteTable(0, 0, false);
    table.bytes = parts.bytes;
    table.view = Buffer.from(parts.bytes.buffer, parts.bytes.byteOffset, parts.bytes.byteLength);
    table.used = parts.used;
    table.ends = parts.ends;
    table.size = parts.size;
    table.slots = parts.slots;
    return table;
  }
}

/** A ByteTable's arrays and counts (ByteTable.parts). */
export interface ByteTableParts {
  bytes: Uint8Array;
  used: number;
  ends: Uint32Array;
  size: number;
  slots: Uint32Array;
}

/** Byte order of two strings' UTF-8 (PostgreSQL's C collation), as ids are compared. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** One reusable buffer for a string's UTF-8 bytes (a string's bytes are at most three per UTF-16 unit). */
let scratch = Buffer.allocUnsafe(256);
function utf8Of(s: string): Buffer {
  if (s.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(s.length * 3);
  return scratch.subarray(0, scratch.write(s, 'utf8'));
}

/**
 * The order (rank DESC, then arrival) of `ranks`: an LSD radix sort of the 32-bit keys, two
 * passes of 16 bits, stable. Ties of rank are then ordered by id by the caller.
 */
function rankOrder(ranks: Int32Array, n: number): Uint32Array {
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  // descending rank = ascending (0x7fffffff - rank) as an unsigned 32-bit number
  const key = (i: number) => (0x7fffffff - ranks[i]) >>> 0;
  for (const shift of [0, 16]) {
    const counts = new Uint32Array(65537);
    for (let i = 0; i < n; i++) counts[((key(from[i]) >>> shift) & 0xffff) + 1]++;
    for (let d = 1; d <= 65536; d++) counts[d] += counts[d - 1];
    for (let i = 0; i < n; i++) to[counts[(key(from[i]) >>> shift) & 0xffff]++] = from[i];
    [from, to] = [to, from];
  }
  return from;
}

/** Postings a block holds (packed lists). */
const BLOCK = 128;

/** Bits needed for values up to `max` (0 for 0). */
const bitsFor = (max: number): number => (max === 0 ? 0 : 32 - Math.clz32(max));

/**
 * Every posting list of a segment, bit-packed (frame of reference, as Lucene's and roaring's
 * containers do it in their own ways): a list of one document is that document (`head`); a longer
 * one is blocks of BLOCK documents, each its first document (`base`) and every document's distance
 * from it in `width` bits (the distance from the first to the last needs). A document is found
 * without decoding its block (its bits are at a known place), so a cursor gallops over the blocks'
 * bases and bisects inside a block as over a plain sorted array.
 */
export class PackedLists {
  /** Term t's list holds starts[t + 1] - starts[t] documents. */
  readonly starts: Uint32Array;
  /** Its document (one) or its first block (more). */
  readonly head: Uint32Array;
  readonly base: Uint32Array;
  readonly width: Uint8Array;
  /** Where each block's bits begin, in 32-bit words. */
  readonly word: Uint32Array;
  readonly words: Uint32Array;

  constructor(starts: Uint32Array, postings: Uint32Array) {
    const terms = starts.length - 1;
    this.starts = starts;
    this.head = new Uint32Array(terms);
    let blocks = 0;
    let bits = 0;
    for (let t = 0; t < terms; t++) {
      const n = starts[t + 1] - starts[t];
      if (n < 2) continue;
      for (let at = starts[t]; at < starts[t + 1]; at += BLOCK) {
        const end = Math.min(at + BLOCK, starts[t + 1]);
        bits += Math.ceil(((end - at) * bitsFor(postings[end - 1] - postings[at])) / 32) * 32;
        blocks++;
      }
    }
    this.base = new Uint32Array(blocks);
    this.width = new Uint8Array(blocks);
    this.word = new Uint32Array(blocks);
    this.words = new Uint32Array(bits / 32 + 1);
    let k = 0;
    let w = 0;
    for (let t = 0; t < terms; t++) {
      const n = starts[t + 1] - starts[t];
      if (n === 0) continue;
      if (n === 1) {
        this.head[t] = postings[starts[t]];
        continue;
      }
      this.head[t] = k;
      for (let at = starts[t]; at < starts[t + 1]; at += BLOCK) {
        const end = Math.min(at + BLOCK, starts[t + 1]);
        const first = postings[at];
        const width = bitsFor(postings[end - 1] - first);
        this.base[k] = first;
        this.width[k] = width;
        this.word[k] = w;
        if (width > 0) {
          for (let j = 0; j < end - at; j++) {
            const value = postings[at + j] - first;
            const bit = j * width;
            const i = w + (bit >>> 5);
            const shift = bit & 31;
            this.words[i] |= value << shift;
            if (shift + width > 32) this.words[i + 1] |= value >>> (32 - shift);
          }
        }
        w += Math.ceil(((end - at) * width) / 32);
        k++;
      }
    }
  }

  length(t: number): number {
    return this.starts[t + 1] - this.starts[t];
  }

  /** Document j of block k. */
  at(k: number, j: number): number {
    const width = this.width[k];
    if (width === 0) return this.base[k];
    const bit = j * width;
    const i = this.word[k] + (bit >>> 5);
    const shift = bit & 31;
    let v = this.words[i] >>> shift;
    if (shift + width > 32) v |= this.words[i + 1] << (32 - shift);
    return this.base[k] + (width === 32 ? v >>> 0 : v & ((1 << width) - 1));
  }

  /** The first n documents of block k into `out`. */
  decode(k: number, n: number, out: Uint32Array): void {
    const base = this.base[k];
    const width = this.width[k];
    if (width === 0) {
      out.fill(base, 0, n);
      return;
    }
    const words = this.words;
    const mask = width === 32 ? 0xffffffff : (1 << width) - 1;
    const first = this.word[k];
    for (let j = 0, bit = 0; j < n; j++, bit += width) {
      const w = first + (bit >>> 5);
      const shift = bit & 31;
      let v = words[w] >>> shift;
      if (shift + width > 32) v |= words[w + 1] << (32 - shift);
      out[j] = base + ((v & mask) >>> 0);
    }
  }

  /** Term t's list as a sorted array (merges, tests). */
  list(t: number): Uint32Array {
    const n = this.length(t);
    const out = new Uint32Array(n);
    if (n === 1) out[0] = this.head[t];
    for (let i = 0; n > 1 && i < n; i++) out[i] = this.at(this.head[t] + (i >>> 7), i & (BLOCK - 1));
    return out;
  }

  get byteLength(): number {
    return this.starts.byteLength + this.head.byteLength + this.base.byteLength + this.width.byteLength + this.word.byteLength + this.words.byteLength;
  }
}

/** What a segment's bytes are spent on (`Segment.breakdown`, `npm run bench -- search-index`). */
export interface SegmentBytes {
  /** The ids: their bytes, an end offset each, the id look-up table. */
  ids: number;
  /** The term dictionary: the terms' bytes, an end offset each, its look-up table. */
  terms: number;
  /** The posting lists, bit-packed (PackedLists): counts, heads, block bases, widths and bits; and the bitmaps of the dense terms queried so far (Segment.bitmap). */
  postings: number;
  /** Per document: rank (4), num_min and num_max (8 each), deleted (1), heap address (6: Segment.tidBlocks, tidOffsets). */
  docs: number;
}

/** A row's heap address in `entities` as PostgreSQL's tid text writes it: `(block,offset)`. */
export const tidText = (block: number, offset: number): string => `(${block},${offset})`;

/** The block and offset of a tid's text (`(block,offset)`), or undefined for anything else. */
export function parseTid(text: string): [number, number] | undefined {
  const m = /^\((\d+),(\d+)\)$/.exec(text);
  if (!m) return undefined;
  const block = Number(m[1]);
  const offset = Number(m[2]);
  return block <= 0xffffffff && offset >= 1 && offset <= 0xffff ? [block, offset] : undefined;
}

/** One segment: documents 0..size-1 in (rank DESC, id) order, and their posting lists. */
export class Segment {
  readonly size: number;
  readonly ranks: Int32Array;
  readonly numMin: Float64Array;
  readonly numMax: Float64Array;
  /** Document d's id is entry d (its look-up table finds a document by id). */
  readonly ids: ByteTable;
  /** Term t's bytes are entry t; its list is lists' term t. */
  readonly dict: ByteTable;
  /** The posting lists, bit-packed. */
  private readonly lists: PackedLists;
  readonly deleted: Uint8Array;
  deletedCount = 0;
  /**
   * Document d's row in `entities` was last seen at heap address (tidBlocks[d], tidOffsets[d]) (its
   * ctid); offset 0 (no line pointer is numbered 0): not known. A hint only: a page reads the row
   * there and checks its id, and reads it by primary key when it moved (an update writes a new
   * version elsewhere; VACUUM FULL and CLUSTER rewrite the table) or is gone; what that read finds
   * is kept here (MemoryIndex.learnTid). Set from the upsert's RETURNING ctid and a build's and a
   * catch-up's COPY of ctid.
   */
  readonly tidBlocks: Uint32Array;
  readonly tidOffsets: Uint16Array;
  /**
   * Documents whose ids no index can hold yet (1), as a writer knows of the rows its upsert
   * inserted: ids are made new for each inserted row. MemoryIndex.add looks for no older version of
   * them, then lets the map go. Undefined: every document may replace one.
   */
  fresh?: Uint8Array;
  /**
   * The lenses of the segment's documents, in byte order, and where each one's documents are:
   * documents are numbered by (lens, rank DESC, id), so lens i's are lensStarts[i] to
   * lensStarts[i + 1] - 1, and a query (always of one lens) walks only its lens's range.
   */
  readonly lenses: readonly string[];
  readonly lensStarts: Uint32Array;

  constructor(parts: {
    ids: ByteTable; ranks: Int32Array; numMin: Float64Array; numMax: Float64Array; dict: ByteTable; starts: Uint32Array; postings: Uint32Array; fresh?: Uint8Array;
    tidBlocks?: Uint32Array; tidOffsets?: Uint16Array; lenses: readonly string[]; lensStarts: Uint32Array;
  }) {
    this.size = parts.ids.size;
    this.lenses = parts.lenses;
    this.lensStarts = parts.lensStarts;
    this.tidBlocks = parts.tidBlocks ?? new Uint32Array(this.size);
    this.tidOffsets = parts.tidOffsets ?? new Uint16Array(this.size);
    this.ids = parts.ids;
    this.ranks = parts.ranks;
    this.numMin = parts.numMin;
    this.numMax = parts.numMax;
    this.dict = parts.dict;
    this.lists = new PackedLists(parts.starts, parts.postings);
    this.deleted = new Uint8Array(this.size);
    this.fresh = parts.fresh;
  }

  get live(): number {
    return this.size - this.deletedCount;
  }

  /** The documents of a lens: [first, end), or undefined when the segment has none. */
  lensRange(lens: string): [number, number] | undefined {
    const i = this.lenses.indexOf(lens);
    return i < 0 ? undefined : [this.lensStarts[i], this.lensStarts[i + 1]];
  }

  id(doc: number): string {
    return this.ids.text(doc);
  }

  /** Document d's heap address as tid text (`(block,offset)`), null where not known (offset 0). */
  tid(doc: number): string | null {
    const offset = this.tidOffsets[doc];
    return offset === 0 ? null : tidText(this.tidBlocks[doc], offset);
  }

  /** The document of an id that is not deleted, or -1. */
  find(id: string): number {
    const bytes = utf8Of(id);
    return this.findBytes(bytes, 0, bytes.length);
  }

  /** The document of the id src[from..to) (UTF-8) that is not deleted, or -1; `hash` its hashBytes, when known. */
  findBytes(src: Uint8Array, from: number, to: number, hash?: number): number {
    return this.ids.find(src, from, to, (doc) => this.deleted[doc] === 0, hash);
  }

  delete(doc: number): void {
    if (this.deleted[doc] === 0) {
      this.deleted[doc] = 1;
      this.deletedCount++;
    }
  }

  /** The posting list of a term (documents ascending), or undefined. */
  list(term: string): Uint32Array | undefined {
    const t = this.termOf(term);
    return t < 0 ? undefined : this.listAt(t);
  }

  /** The posting list of term number t, decoded. */
  listAt(t: number): Uint32Array {
    return this.lists.list(t);
  }

  /** Bitmaps of dense terms (Segment.bitmap), by term number, made at the first query that asks each. */
  private readonly bitmaps = new Map<number, Uint32Array>();
  private bitmapBytes = 0;

  /**
   * Term t's documents as a bitmap (bit d of word d >>> 5: document d has the term) when its list
   * is dense, at least one document in DENSE; else undefined. Made from the list ahead in a segment
   * of WARM_MIN_DOCS or more (warmBitmaps), else at the first query that asks the term, then kept
   * with the segment (immutable, as the lists are). A bitmap takes
   * size / 8 bytes, at most 4 bytes a posting of its list (a term in DENSE documents or more), and
   * answers "has document d" with one load, where a cursor gallops and decodes blocks.
   */
  private bitmap(t: number): Uint32Array | undefined {
    const length = this.lists.length(t);
    if (length < 2 || length * DENSE < this.size) return undefined;
    let bits = this.bitmaps.get(t);
    if (bits) return bits;
    bits = new Uint32Array((this.size + 31) >>> 5);
    const block = new Uint32Array(BLOCK);
    for (let k = this.lists.head[t], at = 0; at < length; k++, at += BLOCK) {
      const n = Math.min(BLOCK, length - at);
      this.lists.decode(k, n, block);
      for (let j = 0; j < n; j++) bits[block[j] >>> 5] |= 1 << (block[j] & 31);
    }
    this.bitmaps.set(t, bits);
    this.bitmapBytes += bits.byteLength;
    return bits;
  }

  /**
   * Makes the bitmaps of the dense terms from term `from` on that have none yet, until
   * performance.now() passes `until`: the term to go on from, or -1 once every dense term has one.
   */
  warmBitmaps(from: number, until: number): number {
    for (let t = from; t < this.dict.size; t++) {
      this.bitmap(t);
      if ((t & 1023) === 1023 && performance.now() >= until) return t + 1;
    }
    return -1;
  }

  /** A cursor over term t's list. */
  private cursor(t: number): Cursor {
    return this.lists.length(t) === 1 ? new OneCursor(this.lists.head[t]) : new PackedCursor(this.lists, t);
  }

  /** Term number of a term, or -1. */
  private termOf(term: string): number {
    const bytes = utf8Of(term);
    return this.dict.find(bytes, 0, bytes.length);
  }

  /** Bytes held by the segment's typed arrays (all it holds: no string or object per document or term). */
  get bytes(): number {
    const b = this.breakdown();
    return b.ids + b.terms + b.postings + b.docs;
  }

  breakdown(): SegmentBytes {
    return {
      ids: this.ids.byteLength,
      terms: this.dict.byteLength,
      postings: this.lists.byteLength + this.bitmapBytes,
      docs: this.ranks.byteLength + this.numMin.byteLength + this.numMax.byteLength + this.deleted.byteLength + this.tidBlocks.byteLength + this.tidOffsets.byteLength,
    };
  }

  /**
   * The matches of `query` in document order (best first), lazily: a cursor whose next() is the
   * next matching live document, or -1.
   *
   * Only the lens's documents are walked (lensRange). A condition whose terms are all dense (a
   * term, or a group of facet values, Segment.bitmap) is a bitmap test; the others are cursors.
   * With cursors, the shortest list leads and every other gallops to its candidates (leapfrog),
   * from the lens's first document, and a candidate they agree on is then tested against the
   * bitmaps. With none (every condition dense, as common facets are), the bitmaps are ANDed a
   * chunk of words at a time (bitmapMatches). Either way the work follows the page asked (the
   * matches before it), not the lists' lengths.
   */
  matches(query: IndexQuery): () => number {
    const none = () => -1;
    if (query.none) return none;
    // the lens is a range of documents (lensStarts), not a condition
    const range = this.lensRange(query.lens);
    if (!range) return none;
    const [first, end] = range;
    const cursors: Cursor[] = [];
    /** Each a group of bitmaps, of which a match is in at least one. */
    const tests: Uint32Array[][] = [];
    for (const term of query.all) {
      const t = this.termOf(term);
      if (t < 0) return none;
      const bits = this.bitmap(t);
      if (bits) tests.push([bits]);
      else cursors.push(this.cursor(t));
    }
    for (const group of query.anyOf) {
      const terms = group.map((term) => this.termOf(term)).filter((t) => t >= 0);
      if (terms.length === 0) return none;
      const bits = terms.map((t) => this.bitmap(t));
      if (bits.every((b) => b !== undefined)) tests.push(bits as Uint32Array[]);
      else cursors.push(terms.length === 1 ? this.cursor(terms[0]) : new UnionCursor(terms.map((t) => this.cursor(t))));
    }
    // the shortest list leads: every other list gallops to its candidates
    cursors.sort((a, b) => a.length - b.length);
    const checks = query.numeric.map((c) => {
      const values = c.column === 'num_min' ? this.numMin : this.numMax;
      const v = c.value;
      // NaN (a null column) fails every comparison, as NULL does in SQL
      return c.op === '>=' ? (d: number) => values[d] >= v : c.op === '<=' ? (d: number) => values[d] <= v : (d: number) => values[d] < v;
    });
    const deleted = this.deleted;
    const passes = (doc: number): boolean => {
      if (deleted[doc] !== 0) return false;
      const w = doc >>> 5;
      const bit = 1 << (doc & 31);
      for (const group of tests) {
        let any = false;
        for (const bits of group) {
          if ((bits[w] & bit) !== 0) {
            any = true;
            break;
          }
        }
        if (!any) return false;
      }
      return checks.every((check) => check(doc));
    };
    if (cursors.length === 0) return bitmapMatches(tests, first, end, deleted, checks);
    let next = first;
    return () => {
      let doc = next;
      for (;;) {
        let agreed = 0;
        for (let i = 0; agreed < cursors.length; i = (i + 1) % cursors.length) {
          const at = cursors[i].seek(doc);
          if (at === NO_DOC || at >= end) return -1;
          if (at === doc) agreed++;
          else {
            doc = at;
            agreed = 1;
          }
        }
        if (passes(doc)) {
          next = doc + 1;
          return doc;
        }
        doc++;
      }
    };
  }
}

/** The first chunk of words bitmapMatches ANDs (a page 1 needs a few matches), doubled up to MAX_CHUNK_WORDS. */
const FIRST_CHUNK_WORDS = 32;
const MAX_CHUNK_WORDS = 1024;

/**
 * The matches among documents first to end - 1 (a lens's: Segment.lensRange) of conditions that
 * are all bitmaps (`groups`, each a condition whose bitmaps a match is in at least one of; none:
 * every document of the range), in document order: the bitmaps are combined a chunk of words at a
 * time, one typed-array loop per bitmap over the chunk (a column at a time, as a vectorised
 * engine does), then the chunk's set bits are read out one match per call. Word by word with a
 * loop over the conditions inside (the form before), a page-40 query of the bench cost 1.5 to 1.9
 * times as much in the index (docs/decisions.md, "Dense terms as bitmaps").
 */
function bitmapMatches(groups: readonly Uint32Array[][], first: number, end: number, deleted: Uint8Array, checks: readonly ((doc: number) => boolean)[]): () => number {
  const words = (end + 31) >>> 5;
  const chunk = new Uint32Array(MAX_CHUNK_WORDS);
  const singles = groups.filter((g) => g.length === 1).map((g) => g[0]);
  const unions = groups.filter((g) => g.length > 1);
  const checked = checks.length > 0;
  let width = FIRST_CHUNK_WORDS;
  /** The chunk's first word, its length, the word being read in it and that word's bits not read yet. */
  let start = first >>> 5;
  let length = 0;
  let at = 0;
  let m = 0;
  const fill = (): boolean => {
    start += length;
    if (start >= words) return false;
    length = Math.min(width, words - start);
    width = Math.min(width * 2, MAX_CHUNK_WORDS);
    const stop = start + length;
    let filled = false;
    for (const bits of singles) {
      if (!filled) chunk.set(bits.subarray(start, stop));
      else for (let w = start, j = 0; w < stop; w++, j++) chunk[j] &= bits[w];
      filled = true;
    }
    for (const group of unions) {
      for (let w = start, j = 0; w < stop; w++, j++) {
        let any = 0;
        for (let g = 0; g < group.length; g++) any |= group[g][w];
        chunk[j] = filled ? chunk[j] & any : any;
      }
      filled = true;
    }
    if (!filled) chunk.fill(0xffffffff, 0, length);
    // the range's first and last words hold documents of other lenses too
    if (start === first >>> 5) chunk[0] &= -1 << (first & 31);
    if (stop === words && (end & 31) !== 0) chunk[length - 1] &= (1 << (end & 31)) - 1;
    at = 0;
    m = chunk[0];
    return true;
  };
  return () => {
    for (;;) {
      while (m === 0) {
        if (++at >= length) {
          if (!fill()) return -1;
        } else m = chunk[at];
      }
      const bit = m & -m;
      m = (m ^ bit) >>> 0;
      const doc = ((start + at) << 5) | (31 - Math.clz32(bit));
      if (deleted[doc] === 0 && (!checked || checks.every((check) => check(doc)))) return doc;
    }
  };
}

interface Cursor {
  readonly length: number;
  /** The first document >= target (the cursor moves there), or NO_DOC. */
  seek(target: number): number;
}

/**
 * A cursor over a packed list of two or more documents: the block it is in decoded into its own
 * array when it enters it; a seek gallops over the blocks' bases to the block that can hold the
 * target, then inside the decoded block from where it is, as over a plain sorted array.
 */
class PackedCursor implements Cursor {
  /** Where the cursor is: index in the list, its block (from the list's first) and in `docs`. */
  private i = 0;
  private b = -1;
  /** Block b decoded, `n` documents. */
  private readonly docs = new Uint32Array(BLOCK);
  private n = 0;
  /** Document i (what a seek at or before it answers without a look). */
  private at = 0;
  private readonly first: number;
  readonly length: number;
  private readonly last: number;
  constructor(private readonly lists: PackedLists, t: number) {
    this.first = lists.head[t];
    this.length = lists.length(t);
    this.last = (this.length - 1) >>> 7;
    this.load(0);
    this.at = this.docs[0];
  }

  private load(b: number): void {
    this.b = b;
    const k = this.first + b;
    const n = (this.n = Math.min(this.length - (b << 7), BLOCK));
    this.lists.decode(k, n, this.docs);
  }

  seek(target: number): number {
    if (this.at >= target) return this.at;
    const bases = this.lists.base;
    const f = this.first;
    let b = this.b;
    let j = this.i & (BLOCK - 1);
    const last = this.last;
    if (b < last && bases[f + b + 1] <= target) {
      // gallop over the blocks' bases to the last block that starts at or before the target
      let lo = b + 1;
      let step = 1;
      let hi = lo + 1;
      while (hi <= last && bases[f + hi] <= target) {
        lo = hi;
        step *= 2;
        hi = lo + step;
      }
      if (hi > last + 1) hi = last + 1;
      while (lo + 1 < hi) {
        const mid = (lo + hi) >>> 1;
        if (bases[f + mid] <= target) lo = mid;
        else hi = mid;
      }
      b = lo;
      this.load(b);
      j = 0;
      if (this.docs[0] === target) {
        this.i = b << 7;
        return (this.at = target);
      }
    }
    // inside block b, document j is before the target: gallop from it, then bisect
    const docs = this.docs;
    const n = this.n;
    let lo = j;
    let step = 1;
    let hi = j + 1;
    while (hi < n && docs[hi] < target) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > n) hi = n;
    while (lo + 1 < hi) {
      const mid = (lo + hi) >>> 1;
      if (docs[mid] < target) lo = mid;
      else hi = mid;
    }
    if (hi < n) {
      this.i = (b << 7) + hi;
      return (this.at = docs[hi]);
    }
    // every document of the block is before the target; the next block starts after it
    this.i = (b + 1) << 7;
    if (this.i >= this.length) return (this.at = NO_DOC);
    this.load(b + 1);
    return (this.at = docs[0]);
  }
}

/** A cursor over a list of one document. */
class OneCursor implements Cursor {
  readonly length = 1;
  constructor(private readonly doc: number) {}
  seek(target: number): number {
    return this.doc >= target ? this.doc : NO_DOC;
  }
}

class UnionCursor implements Cursor {
  readonly length: number;
  constructor(private readonly members: Cursor[]) {
    this.length = members.reduce((n, m) => n + m.length, 0);
  }
  seek(target: number): number {
    let best = NO_DOC;
    for (const m of this.members) {
      const at = m.seek(target);
      if (at < best) best = at;
    }
    return best;
  }
}

/**
 * Builds a segment from documents in any order: their terms interned as they come, then the
 * documents numbered in (rank DESC, id) order and the posting lists filled in that order (so each
 * is sorted). Duplicate ids are the caller's to avoid. A document comes as an IndexDoc (`add`) or
 * as bytes (`startDoc`, `term` for each lexeme, `endDoc`: the binary COPY of a build, no string
 * made per id or term).
 */
export class SegmentBuilder {
  /** The ids in arrival order (unindexed until build). */
  private ids: ByteTable;
  private ranks: Int32Array;
  private numMin: Float64Array;
  private numMax: Float64Array;
  /** Per document in arrival order: its heap address (startDoc's `block` and `offset`; offset 0: not known). */
  private tidBlocks: Uint32Array;
  private tidOffsets: Uint16Array;
  /** Per document in arrival order: its lens, as its number in `lensNames`. */
  private lensOf: Uint16Array;
  private lensNames: string[] = [];
  private lensNumbers = new Map<string, number>();
  /** Per document in arrival order: 1 if its id is new to every index (startDoc's `fresh`); undefined while none is. */
  private fresh?: Uint8Array;
  private dict: ByteTable;
  private docTerms: U32;
  private docEnds: U32;
  private counts: Uint32Array = new Uint32Array(1024);
  private lastDoc: Int32Array = new Int32Array(1024);

  /** `expected`: about how many documents will come (room is made for them at once). */
  constructor(expected = 1024) {
    const n = Math.max(16, expected);
    this.ids = new ByteTable(n, n * 32, false);
    this.ranks = new Int32Array(n);
    this.numMin = new Float64Array(n);
    this.numMax = new Float64Array(n);
    this.tidBlocks = new Uint32Array(n);
    this.tidOffsets = new Uint16Array(n);
    this.lensOf = new Uint16Array(n);
    this.dict = new ByteTable(Math.max(1024, n >> 1), Math.max(16_384, n * 8));
    this.docTerms = new U32(n * 20);
    this.docEnds = new U32(n);
  }

  get size(): number {
    return this.ids.size;
  }

  add(doc: IndexDoc): void {
    const id = Buffer.from(doc.id, 'utf8');
    this.startDoc(id, 0, id.length, doc.rank, doc.numMin ?? NaN, doc.numMax ?? NaN, doc.lens);
    for (const term of doc.terms) {
      const bytes = utf8Of(term);
      this.term(bytes, 0, bytes.length);
    }
    this.endDoc();
  }

  /**
   * Begins a document: its id is src[from..to), NaN for a null numeric column; `block` and
   * `offset` its row's heap address in `entities` (offset 0: not known).
   */
  startDoc(src: Uint8Array, from: number, to: number, rank: number, numMin: number, numMax: number, lens: string, fresh = false, block = 0, offset = 0): void {
    const a = this.ids.size;
    if (a === this.ranks.length) {
      const grow = <T extends Int32Array | Float64Array | Uint32Array | Uint16Array>(x: T): T => {
        const y = new (x.constructor as new (n: number) => T)(Math.ceil(x.length * 1.5));
        y.set(x);
        return y;
      };
      this.ranks = grow(this.ranks);
      this.numMin = grow(this.numMin);
      this.numMax = grow(this.numMax);
      this.tidBlocks = grow(this.tidBlocks);
      this.tidOffsets = grow(this.tidOffsets);
      this.lensOf = grow(this.lensOf);
      if (this.fresh) {
        const more = new Uint8Array(this.ranks.length);
        more.set(this.fresh);
        this.fresh = more;
      }
    }
    if (fresh) (this.fresh ??= new Uint8Array(this.ranks.length))[a] = 1;
    this.ids.append(src, from, to);
    this.ranks[a] = rank;
    this.numMin[a] = numMin;
    this.numMax[a] = numMax;
    this.tidBlocks[a] = block;
    this.tidOffsets[a] = offset;
    let lensNumber = this.lensNumbers.get(lens);
    if (lensNumber === undefined) {
      lensNumber = this.lensNames.length;
      if (lensNumber > 0xffff) throw new Error('a segment holds at most 65,536 lenses');
      this.lensNames.push(lens);
      this.lensNumbers.set(lens, lensNumber);
    }
    this.lensOf[a] = lensNumber;
  }

  /** Sets the heap address of document `a` (in arrival order), known only after its row was written. */
  placeAt(a: number, block: number, offset: number): void {
    this.tidBlocks[a] = block;
    this.tidOffsets[a] = offset;
  }

  /** A term of the document begun last: src[from..to). False when the document has it already (it is not added again). */
  term(src: Uint8Array, from: number, to: number): boolean {
    const a = this.ids.size - 1;
    const t = this.dict.intern(src, from, to);
    if (t >= this.counts.length) {
      const counts = new Uint32Array(this.counts.length * 2);
      counts.set(this.counts);
      this.counts = counts;
      const last = new Int32Array(this.lastDoc.length * 2);
      last.set(this.lastDoc);
      this.lastDoc = last;
    }
    if (this.counts[t] > 0 && this.lastDoc[t] === a) return false; // a term twice in one document
    this.lastDoc[t] = a;
    this.counts[t]++;
    this.docTerms.push(t);
    return true;
  }

  endDoc(): void {
    this.docEnds.push(this.docTerms.n);
  }

  /**
   * What the builder holds, as structured clone takes it: a builder filled on another thread (the
   * seed encoder's, seed-encoder.ts) goes on in the thread that writes its rows
   * (SegmentBuilder.fromParts). Its arrays' buffers are listed in `transfer` (moved, not copied):
   * this builder is not used after.
   */
  parts(transfer: ArrayBuffer[]): SegmentBuilderParts {
    const arrays = [this.ranks, this.numMin, this.numMax, this.tidBlocks, this.tidOffsets, this.lensOf, this.counts, this.lastDoc, this.docTerms.a, this.docEnds.a, ...(this.fresh ? [this.fresh] : [])];
    for (const a of arrays) transfer.push(a.buffer as ArrayBuffer);
    return {
      ids: this.ids.parts(transfer), ranks: this.ranks, numMin: this.numMin, numMax: this.numMax, tidBlocks: this.tidBlocks, tidOffsets: this.tidOffsets,
      lensOf: this.lensOf, lensNames: this.lensNames, fresh: this.fresh, dict: this.dict.parts(transfer),
      docTerms: this.docTerms.a, docTermCount: this.docTerms.n, docEnds: this.docEnds.a, docCount: this.docEnds.n, counts: this.counts, lastDoc: this.lastDoc,
    };
  }

  /** A builder again from its parts (SegmentBuilder.parts, another thread's). */
  static fromParts(parts: SegmentBuilderParts): SegmentBuilder {
    const builder = new SegmentBuilder(16);
    builder.ids = ByteTable.fromParts(parts.ids);
    builder.ranks = parts.ranks;
    builder.numMin = parts.numMin;
    builder.numMax = parts.numMax;
    builder.tidBlocks = parts.tidBlocks;
    builder.tidOffsets = parts.tidOffsets;
    builder.lensOf = parts.lensOf;
    builder.lensNames = [...parts.lensNames];
    builder.lensNumbers = new Map(parts.lensNames.map((lens, i) => [lens, i]));
    builder.fresh = parts.fresh;
    builder.dict = ByteTable.fromParts(parts.dict);
    builder.docTerms = U32.of(parts.docTerms, parts.docTermCount);
    builder.docEnds = U32.of(parts.docEnds, parts.docCount);
    builder.counts = parts.counts;
    builder.lastDoc = parts.lastDoc;
    return builder;
  }

  /**
   * The segment (once: the builder lets go of what it held as it goes, each step in a method of
   * its own, so a build's peak memory is its largest step rather than all of them at once).
   */
  build(): Segment {
    const n = this.ids.size;
    const ranked = rankOrder(this.ranks, n);
    // ties of rank by id (C collation: byte order)
    for (let i = 0; i < n;) {
      let j = i + 1;
      while (j < n && this.ranks[ranked[j]] === this.ranks[ranked[i]]) j++;
      if (j - i > 1) ranked.subarray(i, j).sort((x, y) => this.ids.compare(x, this.ids, y));
      i = j;
    }
    // then grouped by lens, lenses in byte order (a stable counting sort keeps the rank order in each)
    const lenses = [...this.lensNames].sort(compareBytes);
    const place = new Uint32Array(this.lensNames.length);
    lenses.forEach((lens, i) => (place[this.lensNumbers.get(lens)!] = i));
    const lensStarts = new Uint32Array(lenses.length + 1);
    for (let a = 0; a < n; a++) lensStarts[place[this.lensOf[a]] + 1]++;
    for (let i = 0; i < lenses.length; i++) lensStarts[i + 1] += lensStarts[i];
    const at = lensStarts.slice(0, lenses.length);
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[at[place[this.lensOf[ranked[i]]]]++] = ranked[i];
    this.lensOf = new Uint16Array(0);
    const terms = this.dict.size;
    const starts = new Uint32Array(terms + 1);
    for (let t = 0; t < terms; t++) starts[t + 1] = starts[t] + this.counts[t];
    this.counts = new Uint32Array(0);
    this.lastDoc = new Int32Array(0);
    const postings = this.fillLists(order, starts);
    const ids = this.idsInOrder(order);
    const [ranks, numMin, numMax, tidBlocks, tidOffsets] = this.columnsInOrder(order);
    let fresh: Uint8Array | undefined;
    if (this.fresh) {
      fresh = new Uint8Array(n);
      for (let d = 0; d < n; d++) fresh[d] = this.fresh[order[d]];
      this.fresh = undefined;
    }
    return new Segment({ ids, ranks, numMin, numMax, dict: this.dict.trim(), starts, postings, fresh, tidBlocks, tidOffsets, lenses, lensStarts });
  }

  /** Every term's list, documents numbered by `order`; the documents' terms let go. */
  private fillLists(order: Uint32Array, starts: Uint32Array): Uint32Array {
    const terms = starts.length - 1;
    const fill = starts.slice(0, terms);
    const postings = new Uint32Array(starts[terms]);
    const ends = this.docEnds.a;
    const flat = this.docTerms.a;
    for (let d = 0; d < order.length; d++) {
      const a = order[d];
      for (let k = a === 0 ? 0 : ends[a - 1]; k < ends[a]; k++) postings[fill[flat[k]]++] = d;
    }
    this.docTerms.a = new Uint32Array(0);
    this.docEnds.a = new Uint32Array(0);
    return postings;
  }

  private idsInOrder(order: Uint32Array): ByteTable {
    const arrived = this.ids;
    const ids = new ByteTable(order.length, arrived.used, false);
    for (let d = 0; d < order.length; d++) ids.append(arrived.bytes, arrived.start(order[d]), arrived.ends[order[d]]);
    this.ids = new ByteTable(0, 0, false);
    ids.reslot();
    return ids;
  }

  private columnsInOrder(order: Uint32Array): [Int32Array, Float64Array, Float64Array, Uint32Array, Uint16Array] {
    const n = order.length;
    const ranks = new Int32Array(n);
    const numMin = new Float64Array(n);
    const numMax = new Float64Array(n);
    const tidBlocks = new Uint32Array(n);
    const tidOffsets = new Uint16Array(n);
    for (let d = 0; d < n; d++) {
      const a = order[d];
      ranks[d] = this.ranks[a];
      numMin[d] = this.numMin[a];
      numMax[d] = this.numMax[a];
      tidBlocks[d] = this.tidBlocks[a];
      tidOffsets[d] = this.tidOffsets[a];
    }
    this.ranks = new Int32Array(0);
    this.numMin = new Float64Array(0);
    this.numMax = new Float64Array(0);
    this.tidBlocks = new Uint32Array(0);
    this.tidOffsets = new Uint16Array(0);
    return [ranks, numMin, numMax, tidBlocks, tidOffsets];
  }
}

/** From this length on, a merged list is put in order by merging its runs (mergeRuns); a shorter one is sorted. */
const SORTED_RUNS_MIN = 64;

/**
 * Puts in order a list made of ascending runs (a merged term's list: each segment's list,
 * renumbered, is one) by merging neighbouring runs, pass after pass (a natural merge sort): a
 * pass a doubling of the runs merged, linear work each, where a sort of the whole list compared
 * every element about log2(n) times. `scratch`: room for the list's length.
 */
export function mergeRuns(list: Uint32Array, scratch: Uint32Array): void {
  const n = list.length;
  let bounds = [0];
  for (let i = 1; i < n; i++) if (list[i] < list[i - 1]) bounds.push(i);
  if (bounds.length === 1) return;
  bounds.push(n);
  let from = list;
  let to = scratch.subarray(0, n);
  while (bounds.length > 2) {
    const merged = [0];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const lo = bounds[r];
      const mid = bounds[r + 1];
      if (r + 2 === bounds.length) {
        // an odd run out: carried to the next pass as it is
        to.set(from.subarray(lo, mid), lo);
        merged.push(mid);
        continue;
      }
      const hi = bounds[r + 2];
      let i = lo;
      let j = mid;
      let o = lo;
      while (i < mid && j < hi) to[o++] = from[i] <= from[j] ? from[i++] : from[j++];
      if (i < mid) to.set(from.subarray(i, mid), o);
      else to.set(from.subarray(j, hi), o);
      merged.push(hi);
    }
    bounds = merged;
    const t = from;
    from = to;
    to = t;
  }
  if (from !== list) list.set(from);
}

/** A SegmentBuilder's arrays and counts (SegmentBuilder.parts). */
export interface SegmentBuilderParts {
  ids: ByteTableParts;
  ranks: Int32Array;
  numMin: Float64Array;
  numMax: Float64Array;
  tidBlocks: Uint32Array;
  tidOffsets: Uint16Array;
  lensOf: Uint16Array;
  lensNames: string[];
  fresh: Uint8Array | undefined;
  dict: ByteTableParts;
  docTerms: Uint32Array;
  docTermCount: number;
  docEnds: Uint32Array;
  docCount: number;
  counts: Uint32Array;
  lastDoc: Int32Array;
}

/** Work of a merge between two looks at the clock (documents or terms). */
const MERGE_STEP = 4096;

/**
 * Merges segments into one, leaving out their deleted documents (as they were when the merge
 * began: `deleted` is a copy of each one's map): the documents interleaved by (rank DESC, id)
 * (each segment is in that order already), each posting list the union of the segments' lists
 * renumbered. A generator that yields every MERGE_STEP documents or terms, so that a merge can
 * run between a process's requests (MemoryIndex.merge); its value is the merged segment.
 */
export function* mergeSteps(segments: readonly Segment[], deleted: readonly Uint8Array[] = segments.map((s) => s.deleted)): Generator<void, Segment> {
  const live = (k: number) => segments[k].size - deleted[k].reduce((n, x) => n + x, 0);
  const total = segments.reduce((n, _, k) => n + live(k), 0);
  const renumber = segments.map((s) => new Int32Array(s.size).fill(-1));
  const ids = new ByteTable(total, segments.reduce((n, s) => n + s.ids.used, 0), false);
  const ranks = new Int32Array(total);
  const numMin = new Float64Array(total);
  const numMax = new Float64Array(total);
  const tidBlocks = new Uint32Array(total);
  const tidOffsets = new Uint16Array(total);
  // lens by lens (in byte order), each lens's documents of every segment interleaved by (rank DESC, id);
  // a lens none of whose documents is live is not in the merged segment
  const lenses: string[] = [];
  const lensStarts: number[] = [];
  const heads = segments.map(() => 0);
  const ends = segments.map(() => 0);
  const skip = (k: number) => {
    while (heads[k] < ends[k] && deleted[k][heads[k]] === 1) heads[k]++;
  };
  let d = 0;
  for (const lens of [...new Set(segments.flatMap((s) => s.lenses))].sort(compareBytes)) {
    const begin = d;
    segments.forEach((s, k) => {
      const range = s.lensRange(lens);
      [heads[k], ends[k]] = range ?? [0, 0];
      skip(k);
    });
    for (;;) {
      let best = -1;
      for (let k = 0; k < segments.length; k++) {
        if (heads[k] >= ends[k]) continue;
        if (best < 0) {
          best = k;
          continue;
        }
        const a = segments[k];
        const b = segments[best];
        const ra = a.ranks[heads[k]];
        const rb = b.ranks[heads[best]];
        if (ra > rb || (ra === rb && a.ids.compare(heads[k], b.ids, heads[best]) < 0)) best = k;
      }
      if (best < 0) break;
      if (d % MERGE_STEP === MERGE_STEP - 1) yield;
      const s = segments[best];
      const doc = heads[best];
      renumber[best][doc] = d;
      ids.append(s.ids.bytes, s.ids.start(doc), s.ids.ends[doc]);
      ranks[d] = s.ranks[doc];
      numMin[d] = s.numMin[doc];
      numMax[d] = s.numMax[doc];
      tidBlocks[d] = s.tidBlocks[doc];
      tidOffsets[d] = s.tidOffsets[doc];
      d++;
      heads[best]++;
      skip(best);
    }
    if (d > begin) {
      lenses.push(lens);
      lensStarts.push(begin);
    }
  }
  lensStarts.push(d);
  ids.reslot();
  // the union of the lists, term by term: first each merged term's count (and its number for
  // each segment's term), then the lists filled; a term of several segments is sorted after
  const dict = new ByteTable(Math.max(...segments.map((s) => s.dict.size), 16), segments.reduce((n, s) => Math.max(n, s.dict.used), 64));
  let counts = new Uint32Array(Math.max(16, dict.ends.length));
  let sources = new Uint8Array(counts.length);
  const termOf = segments.map((s) => new Int32Array(s.dict.size).fill(-1));
  let work = 0;
  for (let k = 0; k < segments.length; k++) {
    const s = segments[k];
    const map = renumber[k];
    for (let t = 0; t < s.dict.size; t++) {
      const list = s.listAt(t);
      work += list.length + 16;
      if (work >= MERGE_STEP * 8) {
        work = 0;
        yield;
      }
      let kept = 0;
      for (let i = 0; i < list.length; i++) if (map[list[i]] >= 0) kept++;
      if (kept === 0) continue;
      const m = dict.intern(s.dict.bytes, s.dict.start(t), s.dict.ends[t]);
      if (m >= counts.length) {
        const grown = new Uint32Array(counts.length * 2);
        grown.set(counts);
        counts = grown;
        const more = new Uint8Array(counts.length);
        more.set(sources);
        sources = more;
      }
      counts[m] += kept;
      if (sources[m] < 2) sources[m]++;
      termOf[k][t] = m;
    }
  }
  const starts = new Uint32Array(dict.size + 1);
  for (let m = 0; m < dict.size; m++) starts[m + 1] = starts[m] + counts[m];
  const fill = starts.slice(0, dict.size);
  const postings = new Uint32Array(starts[dict.size]);
  for (let k = 0; k < segments.length; k++) {
    const s = segments[k];
    const map = renumber[k];
    for (let t = 0; t < s.dict.size; t++) {
      const m = termOf[k][t];
      if (m < 0) continue;
      const list = s.listAt(t);
      work += list.length + 16;
      if (work >= MERGE_STEP * 8) {
        work = 0;
        yield;
      }
      let at = fill[m];
      for (let i = 0; i < list.length; i++) {
        const d = map[list[i]];
        if (d >= 0) postings[at++] = d;
      }
      fill[m] = at;
    }
  }
  let scratch = new Uint32Array(0);
  for (let m = 0; m < dict.size; m++) {
    if (sources[m] < 2) continue;
    const list = postings.subarray(starts[m], starts[m + 1]);
    if (list.length < SORTED_RUNS_MIN) list.sort();
    else {
      if (scratch.length < list.length) scratch = new Uint32Array(list.length);
      mergeRuns(list, scratch);
    }
    work += starts[m + 1] - starts[m] + 16;
    if (work >= MERGE_STEP * 8) {
      work = 0;
      yield;
    }
  }
  return new Segment({ ids, ranks, numMin, numMax, dict: dict.trim(), starts, postings, tidBlocks, tidOffsets, lenses, lensStarts: Uint32Array.from(lensStarts) });
}

/** mergeSteps run to its end at once. */
export function mergeSegments(segments: readonly Segment[]): Segment {
  const steps = mergeSteps(segments);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** How long a merge works before it lets the process answer what waits (ms). */
const MERGE_SLICE_MS = 4;

/**
 * The segments of one index and the generation they reflect. Documents are replaced by id:
 * `apply` deletes the versions it replaces wherever they are and adds the new ones as a segment.
 * A tier (segments of about one size) that holds MERGE_FACTOR segments is merged in the
 * background, MERGE_SLICE_MS at a time between a process's other work: queries read the old
 * segments until the merged one takes their place, and a document deleted from them meanwhile
 * is deleted from it then.
 */
export class MemoryIndex {
  private segments: Segment[] = [];
  /** The index generation (entities_count.generation) whose writes are all in. */
  generation = 0n;
  private merging?: { sources: Segment[]; deletedSince: string[]; done: Promise<void> };
  /** The segments whose dense terms all have their bitmaps, and the making of one's in flight. */
  private readonly warmed = new WeakSet<Segment>();
  private warming?: Promise<void>;

  /** `warmMinDocs`: the size from which a segment's bitmaps are made ahead (WARM_MIN_DOCS; tests set less). */
  constructor(segments: Segment[] = [], generation = 0n, private readonly warmMinDocs = WARM_MIN_DOCS) {
    this.segments = segments.filter((s) => s.size > 0);
    this.generation = generation;
    this.scheduleWarm();
  }

  get size(): number {
    return this.segments.reduce((n, s) => n + s.live, 0);
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  get bytes(): number {
    return this.segments.reduce((n, s) => n + s.bytes, 0);
  }

  /** The segments' bytes by structure, summed. */
  breakdown(): SegmentBytes {
    const sum: SegmentBytes = { ids: 0, terms: 0, postings: 0, docs: 0 };
    for (const s of this.segments) {
      const b = s.breakdown();
      sum.ids += b.ids;
      sum.terms += b.terms;
      sum.postings += b.postings;
      sum.docs += b.docs;
    }
    return sum;
  }

  /** Upserts `docs` (by id; the last of one id wins) and deletes `deleted` ids. */
  apply(docs: readonly IndexDoc[], deleted: readonly string[] = []): void {
    const byId = new Map<string, IndexDoc>();
    for (const doc of docs) byId.set(doc.id, doc);
    const gone = new Set(deleted);
    for (const id of gone) {
      const bytes = utf8Of(id);
      this.remove(bytes, 0, bytes.length);
    }
    const builder = new SegmentBuilder();
    for (const doc of byId.values()) if (!gone.has(doc.id)) builder.add(doc);
    this.add(builder.build());
  }

  /**
   * Adds a segment of documents, each id at most once in it, new or replacing the version of
   * their id wherever it is (deleted there): a catch-up's documents, built as they streamed in.
   * The documents the segment marks fresh are not looked for (Segment.fresh).
   */
  add(segment: Segment): void {
    const ids = segment.ids;
    const fresh = segment.fresh;
    segment.fresh = undefined;
    for (let d = 0; d < segment.size; d++) if (!fresh || fresh[d] === 0) this.remove(ids.bytes, ids.start(d), ids.ends[d]);
    if (segment.size > 0) this.segments.push(segment);
    this.segments = this.segments.filter((s) => s.live > 0 || this.merging?.sources.includes(s));
    this.scheduleMerge();
    this.scheduleWarm();
  }

  /** Deletes the id src[from..to) (UTF-8) wherever it is. */
  private remove(src: Uint8Array, from: number, to: number): void {
    const hash = hashBytes(src, from, to); // once, not once a segment
    for (const s of this.segments) {
      const doc = s.findBytes(src, from, to, hash);
      if (doc < 0) continue;
      s.delete(doc);
      if (this.merging?.sources.includes(s)) this.merging.deletedSince.push(Buffer.from(src.subarray(from, to)).toString('utf8'));
    }
  }

  /**
   * The segments holding the id src[from..to) (UTF-8) not deleted, with its document in each (at
   * most one: add() deletes an id's older version). remove() keeps its own loop: it runs for every
   * document a seed or catch-up adds, where a generator a call would cost.
   */
  private *docsOf(src: Uint8Array, from: number, to: number): Generator<[Segment, number]> {
    const hash = hashBytes(src, from, to); // once, not once a segment
    for (const s of this.segments) {
      const doc = s.findBytes(src, from, to, hash);
      if (doc >= 0) yield [s, doc];
    }
  }

  /** The segments of a full tier, if one is (none while a merge runs). */
  private fullTier(): Segment[] | undefined {
    const tiers = new Map<number, Segment[]>();
    for (const s of this.segments) {
      const tier = Math.max(0, Math.floor(Math.log(Math.max(1, s.live) / SMALLEST) / Math.log(MERGE_FACTOR)));
      tiers.set(tier, [...(tiers.get(tier) ?? []), s]);
    }
    return [...tiers.values()].find((group) => group.length >= MERGE_FACTOR);
  }

  private scheduleMerge(): void {
    if (this.merging) return;
    const sources = this.fullTier();
    if (sources) void this.merge(sources);
  }

  /** Merges `sources` in slices of MERGE_SLICE_MS, then puts the merged segment in their place. */
  private merge(sources: Segment[]): Promise<void> {
    const run = async () => {
      const steps = mergeSteps(sources, sources.map((s) => s.deleted.slice()));
      let merged: Segment | undefined;
      while (!merged) {
        const until = performance.now() + MERGE_SLICE_MS;
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) {
            merged = step.value;
            break;
          }
          if (performance.now() >= until) break;
        }
        if (!merged) await new Promise((resolve) => setImmediate(resolve));
      }
      for (const id of merging.deletedSince) {
        const doc = merged.find(id);
        if (doc >= 0) merged.delete(doc);
      }
      const at = this.segments.indexOf(sources[0]);
      this.segments = [...this.segments.slice(0, at), merged, ...this.segments.slice(at).filter((s) => !sources.includes(s))].filter((s) => s.live > 0);
    };
    const merging: { sources: Segment[]; deletedSince: string[]; done: Promise<void> } = { sources, deletedSince: [], done: Promise.resolve() };
    this.merging = merging;
    // a merge that fails leaves its sources in place: the index stays whole, only less merged
    merging.done = run().catch(() => undefined).finally(() => {
      this.merging = undefined;
      this.scheduleMerge();
      this.scheduleWarm();
    });
    return merging.done;
  }

  /**
   * Makes the bitmaps of a large segment's dense terms (WARM_MIN_DOCS), in slices of
   * MERGE_SLICE_MS from the next loop turn on, while no merge runs (a merge's segment is warmed
   * once it is in place); then the next such segment's. A segment merged away meanwhile is left.
   */
  private scheduleWarm(): void {
    if (this.warming || this.merging) return;
    const segment = this.segments.find((s) => s.size >= this.warmMinDocs && !this.warmed.has(s));
    if (!segment) return;
    const run = async () => {
      for (let t = 0; t >= 0; ) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.merging || !this.segments.includes(segment)) return;
        t = segment.warmBitmaps(t, performance.now() + MERGE_SLICE_MS);
      }
      this.warmed.add(segment);
    };
    this.warming = run().catch(() => undefined).finally(() => {
      this.warming = undefined;
      this.scheduleWarm();
    });
  }

  /** Resolves when no merge runs or is due (tests, and a bulk load's end). */
  async idle(): Promise<void> {
    while (this.merging) await this.merging.done;
  }

  /** Resolves when no merge runs and every large segment's bitmaps are made (tests). */
  async warm(): Promise<void> {
    for (;;) {
      await this.idle();
      if (!this.warming) return;
      await this.warming;
    }
  }

  /** Merges every segment into one, at once (a bulk load's end, tests). */
  async optimize(): Promise<void> {
    await this.idle();
    if (this.segments.length > 1) await this.merge([...this.segments]);
    await this.idle();
  }

  /**
   * The heap address (tid text, `(block,offset)`) last seen of each id's row in `entities`, null
   * where none is known (or the id is in no segment), looked up by id (tests, diagnostics: a page
   * takes its addresses from `search`, which finds them with the documents).
   */
  tidsOf(ids: readonly string[]): (string | null)[] {
    return ids.map((id) => {
      const bytes = utf8Of(id);
      for (const [s, doc] of this.docsOf(bytes, 0, bytes.length)) return s.tid(doc);
      return null;
    });
  }

  /**
   * Keeps where an id's row was found (tid text `(block,offset)`: a page read it by primary key
   * because the address held was not known or not its row any more), for the next page that
   * reads it. Also set in a merge's sources: the merged segment copies them.
   */
  learnTid(id: string, tid: string): void {
    const at = parseTid(tid);
    if (!at) return;
    const bytes = utf8Of(id);
    for (const [s, doc] of this.docsOf(bytes, 0, bytes.length)) {
      s.tidBlocks[doc] = at[0];
      s.tidOffsets[doc] = at[1];
    }
  }

  /**
   * The ids of the matches of `query` ranked `from` to `limit` - 1, in (rank DESC, id) order; with
   * `tids`, each one's heap address (tid text, null where not known) pushed there in the same
   * order, read from the document found (no look-up by id).
   */
  search(query: IndexQuery, limit: number, from = 0, tids?: (string | null)[]): string[] {
    const out: string[] = [];
    if (query.none || limit <= 0) return out;
    const cursors = this.segments.map((s) => s.matches(query));
    const heads = cursors.map((next) => next());
    for (let taken = 0; taken < limit; taken++) {
      let best = -1;
      for (let k = 0; k < heads.length; k++) {
        if (heads[k] < 0) continue;
        if (best < 0) {
          best = k;
          continue;
        }
        const a = this.segments[k];
        const b = this.segments[best];
        const ra = a.ranks[heads[k]];
        const rb = b.ranks[heads[best]];
        if (ra > rb || (ra === rb && a.ids.compare(heads[k], b.ids, heads[best]) < 0)) best = k;
      }
      if (best < 0) break;
      // only the ids asked for are made strings
      if (taken >= from) {
        const s = this.segments[best];
        const doc = heads[best];
        out.push(s.id(doc));
        if (tids) tids.push(s.tid(doc));
      }
      heads[best] = cursors[best]();
    }
    return out;
  }
}
