/**
 * The in-process inverted index of SEARCH_INDEX=memory (issue 37, docs/decisions.md "Search in
 * memory"): posting lists of rank-ordered document numbers, in segments as Lucene keeps them.
 *
 * A segment is immutable but for its deleted-documents map: its documents are numbered 0..n-1 in
 * (rank_score DESC, id) order, so a posting list (a sorted Uint32Array) lists a term's documents
 * best first, and a conjunction walked from the start of the lists (leapfrog, each list galloping
 * to the next candidate) finds the best matches first and stops when it has as many as the page
 * needs: the cost of a query follows the page it asks, not the length of its lists. A write
 * (an ingested batch) becomes a new small segment; the older version of every document it holds
 * is marked deleted where it was. Segments of one size tier are merged once there are
 * MERGE_FACTOR of them (a merge keeps the order: it interleaves the segments by rank), so a query
 * walks O(log n) segments and takes the best of their heads.
 */

/** What the index knows of an entity: its lens, rank, numeric filter columns and `terms` (entities_rank). */
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

/** The lens as a term of its own: no lexeme of PostgreSQL's text can hold a NUL. */
const lensTerm = (lens: string): string => `\u0000lens:${lens}`;

/** A Map holds at most 2^24 keys in V8: the term dictionary is split below that. */
const DICT_SHARD = 1 << 23;
/** Segments of one tier merge when there are this many (tier: floor(log_MERGE_FACTOR(size / SMALLEST))). */
export const MERGE_FACTOR = 8;
const SMALLEST = 1024;

const NO_DOC = 0xffffffff;

/** Byte order of two ids (the `C` collation): JavaScript's order of UTF-16 units where both are ASCII. */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** FNV-1a over a string's UTF-16 units. */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A growable Uint32Array. */
class U32 {
  a = new Uint32Array(1024);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/** term -> id over shards of at most DICT_SHARD keys. */
class TermDict {
  private readonly shards: Map<string, number>[] = [new Map()];
  size = 0;
  get(term: string): number | undefined {
    for (const shard of this.shards) {
      const id = shard.get(term);
      if (id !== undefined) return id;
    }
    return undefined;
  }
  /** The term's id, a new one (this.size before) if it had none. */
  intern(term: string): number {
    const known = this.get(term);
    if (known !== undefined) return known;
    let last = this.shards[this.shards.length - 1];
    if (last.size >= DICT_SHARD) this.shards.push((last = new Map()));
    last.set(term, this.size);
    return this.size++;
  }
  *entries(): IterableIterator<[string, number]> {
    for (const shard of this.shards) yield* shard.entries();
  }
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

/** One segment: documents 0..size-1 in (rank DESC, id) order, and their posting lists. */
export class Segment {
  readonly size: number;
  readonly ranks: Int32Array;
  readonly numMin: Float64Array;
  readonly numMax: Float64Array;
  private readonly ids: string[];
  private readonly dict: TermDict;
  private readonly starts: Uint32Array;
  private readonly postings: Uint32Array;
  readonly deleted: Uint8Array;
  deletedCount = 0;
  /** Open addressing: doc + 1 per slot (0 empty), slots a power of two at least twice the size. */
  private readonly byId: Uint32Array;

  constructor(parts: { ids: string[]; ranks: Int32Array; numMin: Float64Array; numMax: Float64Array; dict: TermDict; starts: Uint32Array; postings: Uint32Array }) {
    this.size = parts.ids.length;
    this.ids = parts.ids;
    this.ranks = parts.ranks;
    this.numMin = parts.numMin;
    this.numMax = parts.numMax;
    this.dict = parts.dict;
    this.starts = parts.starts;
    this.postings = parts.postings;
    this.deleted = new Uint8Array(this.size);
    let slots = 16;
    while (slots < this.size * 2) slots *= 2;
    this.byId = new Uint32Array(slots);
    const mask = slots - 1;
    for (let d = 0; d < this.size; d++) {
      let s = hashOf(this.ids[d]) & mask;
      while (this.byId[s] !== 0) s = (s + 1) & mask;
      this.byId[s] = d + 1;
    }
  }

  get live(): number {
    return this.size - this.deletedCount;
  }

  id(doc: number): string {
    return this.ids[doc];
  }

  /** The document of an id that is not deleted, or -1. */
  find(id: string): number {
    const mask = this.byId.length - 1;
    for (let s = hashOf(id) & mask; this.byId[s] !== 0; s = (s + 1) & mask) {
      const doc = this.byId[s] - 1;
      if (this.ids[doc] === id && this.deleted[doc] === 0) return doc;
    }
    return -1;
  }

  delete(doc: number): void {
    if (this.deleted[doc] === 0) {
      this.deleted[doc] = 1;
      this.deletedCount++;
    }
  }

  /** The posting list of a term (documents ascending), or undefined. */
  list(term: string): Uint32Array | undefined {
    const t = this.dict.get(term);
    return t === undefined ? undefined : this.postings.subarray(this.starts[t], this.starts[t + 1]);
  }

  /** Every term and its posting list. */
  *lists(): IterableIterator<[string, Uint32Array]> {
    for (const [term, t] of this.dict.entries()) yield [term, this.postings.subarray(this.starts[t], this.starts[t + 1])];
  }

  /** Bytes held by the typed arrays (the ids and the dictionary's strings are on the JS heap). */
  get bytes(): number {
    return this.ranks.byteLength + this.numMin.byteLength + this.numMax.byteLength + this.starts.byteLength + this.postings.byteLength + this.deleted.byteLength + this.byId.byteLength;
  }

  /**
   * The matches of `query` in document order (best first), lazily: a cursor whose next() is the
   * next matching live document, or -1.
   */
  matches(query: IndexQuery): () => number {
    const none = () => -1;
    if (query.none) return none;
    const cursors: Cursor[] = [];
    for (const term of [lensTerm(query.lens), ...query.all]) {
      const list = this.list(term);
      if (!list) return none;
      cursors.push(new ListCursor(list));
    }
    for (const group of query.anyOf) {
      const lists = group.map((t) => this.list(t)).filter((l): l is Uint32Array => l !== undefined);
      if (lists.length === 0) return none;
      cursors.push(lists.length === 1 ? new ListCursor(lists[0]) : new UnionCursor(lists.map((l) => new ListCursor(l))));
    }
    // the shortest list leads: every other list gallops to its candidates
    cursors.sort((a, b) => a.length - b.length);
    const checks = query.numeric.map((c) => {
      const values = c.column === 'num_min' ? this.numMin : this.numMax;
      const v = c.value;
      // NaN (a null column) fails every comparison, as NULL does in SQL
      return c.op === '>=' ? (d: number) => values[d] >= v : c.op === '<=' ? (d: number) => values[d] <= v : (d: number) => values[d] < v;
    });
    let next = 0;
    return () => {
      let doc = next;
      for (;;) {
        let agreed = 0;
        for (let i = 0; agreed < cursors.length; i = (i + 1) % cursors.length) {
          const at = cursors[i].seek(doc);
          if (at === NO_DOC) return -1;
          if (at === doc) agreed++;
          else {
            doc = at;
            agreed = 1;
          }
        }
        if (this.deleted[doc] === 0 && checks.every((check) => check(doc))) {
          next = doc + 1;
          return doc;
        }
        doc++;
      }
    };
  }
}

interface Cursor {
  readonly length: number;
  /** The first document >= target (the cursor moves there), or NO_DOC. */
  seek(target: number): number;
}

class ListCursor implements Cursor {
  private at = 0;
  constructor(private readonly list: Uint32Array) {}
  get length(): number {
    return this.list.length;
  }
  seek(target: number): number {
    const list = this.list;
    let lo = this.at;
    if (lo >= list.length) return NO_DOC;
    if (list[lo] >= target) return list[lo];
    // gallop: double the step until past the target, then bisect the last step
    let step = 1;
    let hi = lo + 1;
    while (hi < list.length && list[hi] < target) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > list.length) hi = list.length;
    // list[lo] < target; the answer is in (lo, hi]
    while (lo + 1 < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid] < target) lo = mid;
      else hi = mid;
    }
    this.at = hi;
    return hi < list.length ? list[hi] : NO_DOC;
  }
}

class UnionCursor implements Cursor {
  readonly length: number;
  constructor(private readonly members: ListCursor[]) {
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
 * is sorted). Duplicate ids are the caller's to avoid.
 */
export class SegmentBuilder {
  private readonly ids: string[] = [];
  private ranks = new Int32Array(1024);
  private numMin = new Float64Array(1024);
  private numMax = new Float64Array(1024);
  private readonly dict = new TermDict();
  private readonly docTerms = new U32();
  private readonly docEnds = new U32();
  private counts = new Uint32Array(1024);
  private lastDoc = new Int32Array(1024);

  get size(): number {
    return this.ids.length;
  }

  add(doc: IndexDoc): void {
    const a = this.ids.length;
    if (a === this.ranks.length) {
      const grow = <T extends Int32Array | Float64Array>(x: T): T => {
        const y = new (x.constructor as new (n: number) => T)(x.length * 2);
        y.set(x);
        return y;
      };
      this.ranks = grow(this.ranks);
      this.numMin = grow(this.numMin);
      this.numMax = grow(this.numMax);
    }
    this.ids.push(doc.id);
    this.ranks[a] = doc.rank;
    this.numMin[a] = doc.numMin ?? NaN;
    this.numMax[a] = doc.numMax ?? NaN;
    this.term(lensTerm(doc.lens), a);
    for (const term of doc.terms) this.term(term, a);
    this.docEnds.push(this.docTerms.n);
  }

  private term(term: string, a: number): void {
    const t = this.dict.intern(term);
    if (t >= this.counts.length) {
      const counts = new Uint32Array(this.counts.length * 2);
      counts.set(this.counts);
      this.counts = counts;
      const last = new Int32Array(this.lastDoc.length * 2);
      last.set(this.lastDoc);
      this.lastDoc = last;
    }
    if (this.counts[t] > 0 && this.lastDoc[t] === a) return; // a term twice in one document
    this.lastDoc[t] = a;
    this.counts[t]++;
    this.docTerms.push(t);
  }

  build(): Segment {
    const n = this.ids.length;
    const order = rankOrder(this.ranks, n);
    // ties of rank by id (C collation)
    for (let i = 0; i < n;) {
      let j = i + 1;
      while (j < n && this.ranks[order[j]] === this.ranks[order[i]]) j++;
      if (j - i > 1) order.subarray(i, j).sort((x, y) => compareIds(this.ids[x], this.ids[y]));
      i = j;
    }
    const terms = this.dict.size;
    const starts = new Uint32Array(terms + 1);
    for (let t = 0; t < terms; t++) starts[t + 1] = starts[t] + this.counts[t];
    const fill = starts.slice(0, terms);
    const postings = new Uint32Array(starts[terms]);
    const ids = new Array<string>(n);
    const ranks = new Int32Array(n);
    const numMin = new Float64Array(n);
    const numMax = new Float64Array(n);
    const ends = this.docEnds.a;
    const flat = this.docTerms.a;
    for (let d = 0; d < n; d++) {
      const a = order[d];
      ids[d] = this.ids[a];
      ranks[d] = this.ranks[a];
      numMin[d] = this.numMin[a];
      numMax[d] = this.numMax[a];
      for (let k = a === 0 ? 0 : ends[a - 1]; k < ends[a]; k++) postings[fill[flat[k]]++] = d;
    }
    return new Segment({ ids, ranks, numMin, numMax, dict: this.dict, starts, postings });
  }
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
  const ids = new Array<string>(total);
  const ranks = new Int32Array(total);
  const numMin = new Float64Array(total);
  const numMax = new Float64Array(total);
  const heads = segments.map(() => 0);
  const skip = (k: number) => {
    while (heads[k] < segments[k].size && deleted[k][heads[k]] === 1) heads[k]++;
  };
  segments.forEach((_, k) => skip(k));
  for (let d = 0; d < total; d++) {
    if (d % MERGE_STEP === MERGE_STEP - 1) yield;
    let best = -1;
    for (let k = 0; k < segments.length; k++) {
      if (heads[k] >= segments[k].size) continue;
      if (best < 0) {
        best = k;
        continue;
      }
      const a = segments[k];
      const b = segments[best];
      const ra = a.ranks[heads[k]];
      const rb = b.ranks[heads[best]];
      if (ra > rb || (ra === rb && compareIds(a.id(heads[k]), b.id(heads[best])) < 0)) best = k;
    }
    const s = segments[best];
    const doc = heads[best];
    renumber[best][doc] = d;
    ids[d] = s.id(doc);
    ranks[d] = s.ranks[doc];
    numMin[d] = s.numMin[doc];
    numMax[d] = s.numMax[doc];
    heads[best]++;
    skip(best);
  }
  // the union of the lists, term by term (a term of several segments: concatenated, then sorted)
  const dict = new TermDict();
  const parts: Uint32Array[][] = [];
  let work = 0;
  for (let k = 0; k < segments.length; k++) {
    const map = renumber[k];
    for (const [term, list] of segments[k].lists()) {
      work += list.length + 16;
      if (work >= MERGE_STEP * 8) {
        work = 0;
        yield;
      }
      let kept = 0;
      for (let i = 0; i < list.length; i++) if (map[list[i]] >= 0) kept++;
      if (kept === 0) continue;
      const out = new Uint32Array(kept);
      let o = 0;
      for (let i = 0; i < list.length; i++) {
        const d = map[list[i]];
        if (d >= 0) out[o++] = d;
      }
      const t = dict.intern(term);
      (parts[t] ??= []).push(out);
    }
  }
  const starts = new Uint32Array(dict.size + 1);
  for (let t = 0; t < dict.size; t++) starts[t + 1] = starts[t] + parts[t].reduce((n, p) => n + p.length, 0);
  const postings = new Uint32Array(starts[dict.size]);
  for (let t = 0; t < dict.size; t++) {
    let at = starts[t];
    for (const p of parts[t]) {
      postings.set(p, at);
      at += p.length;
    }
    if (parts[t].length > 1) postings.subarray(starts[t], starts[t + 1]).sort();
    work += at - starts[t] + 16;
    if (work >= MERGE_STEP * 8) {
      work = 0;
      yield;
    }
  }
  return new Segment({ ids, ranks, numMin, numMax, dict, starts, postings });
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

  constructor(segments: Segment[] = [], generation = 0n) {
    this.segments = segments.filter((s) => s.size > 0);
    this.generation = generation;
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

  /** Upserts `docs` (by id; the last of one id wins) and deletes `deleted` ids. */
  apply(docs: readonly IndexDoc[], deleted: readonly string[] = []): void {
    const byId = new Map<string, IndexDoc>();
    for (const doc of docs) byId.set(doc.id, doc);
    const gone = new Set(deleted);
    for (const id of [...byId.keys(), ...gone]) this.remove(id);
    const builder = new SegmentBuilder();
    for (const doc of byId.values()) if (!gone.has(doc.id)) builder.add(doc);
    if (builder.size > 0) this.segments.push(builder.build());
    this.segments = this.segments.filter((s) => s.live > 0 || this.merging?.sources.includes(s));
    this.scheduleMerge();
  }

  private remove(id: string): void {
    for (const s of this.segments) {
      const doc = s.find(id);
      if (doc < 0) continue;
      s.delete(doc);
      if (this.merging?.sources.includes(s)) this.merging.deletedSince.push(id);
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
    });
    return merging.done;
  }

  /** Resolves when no merge runs or is due (tests, and a bulk load's end). */
  async idle(): Promise<void> {
    while (this.merging) await this.merging.done;
  }

  /** Merges every segment into one, at once (a bulk load's end, tests). */
  async optimize(): Promise<void> {
    await this.idle();
    if (this.segments.length > 1) await this.merge([...this.segments]);
    await this.idle();
  }

  /** The ids of the first `limit` matches of `query` in (rank DESC, id) order. */
  search(query: IndexQuery, limit: number): string[] {
    const out: string[] = [];
    if (query.none || limit <= 0) return out;
    const cursors = this.segments.map((s) => s.matches(query));
    const heads = cursors.map((next) => next());
    while (out.length < limit) {
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
        if (ra > rb || (ra === rb && compareIds(a.id(heads[k]), b.id(heads[best])) < 0)) best = k;
      }
      if (best < 0) break;
      out.push(this.segments[best].id(heads[best]));
      heads[best] = cursors[best]();
    }
    return out;
  }
}
