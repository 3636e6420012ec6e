import { IndexDoc, IndexQuery, MERGE_FACTOR, MemoryIndex, mergeRuns, mergeSegments, parseTid, SegmentBuilder } from './memory-index';

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'];
const LENSES = ['leads', 'investors'];

function makeDoc(r: () => number, id: string): IndexDoc {
  const terms = new Set<string>();
  for (const w of WORDS) if (r() < 0.3) terms.add(w);
  terms.add(`F:stage:${['seed', 'series_a', 'growth'][Math.floor(r() * 3)]}`);
  if (r() < 0.5) terms.add(`F:stage:${['seed', 'series_a', 'growth'][Math.floor(r() * 3)]}`);
  return {
    id, lens: LENSES[Math.floor(r() * 2)],
    // a narrow range of ranks: many ties, broken by id
    rank: Math.floor(r() * 40) - 5,
    numMin: r() < 0.2 ? null : Math.floor(r() * 100), numMax: r() < 0.2 ? null : Math.floor(r() * 100),
    terms: [...terms],
  };
}

/** The expected ids: every live document matched and sorted here. */
function brute(docs: Map<string, IndexDoc>, q: IndexQuery, limit: number): string[] {
  const num = (d: IndexDoc, c: IndexQuery['numeric'][number]) => {
    const v = c.column === 'num_min' ? d.numMin : d.numMax;
    if (v === null) return false;
    return c.op === '>=' ? v >= c.value : c.op === '<=' ? v <= c.value : v < c.value;
  };
  return [...docs.values()]
    .filter((d) => !q.none && d.lens === q.lens && q.all.every((t) => d.terms.includes(t)) && q.anyOf.every((g) => g.some((t) => d.terms.includes(t))) && q.numeric.every((c) => num(d, c)))
    .sort((a, b) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit)
    .map((d) => d.id);
}

function queries(r: () => number): IndexQuery[] {
  const out: IndexQuery[] = [];
  for (let i = 0; i < 30; i++) {
    const all = WORDS.filter(() => r() < 0.25);
    const anyOf = r() < 0.5 ? [['F:stage:seed', 'F:stage:growth'].filter(() => r() < 0.8)] : [];
    const numeric: IndexQuery['numeric'][number][] = [];
    if (r() < 0.3) numeric.push({ column: 'num_max', op: '>=', value: 50 });
    if (r() < 0.2) numeric.push({ column: 'num_min', op: '<', value: 30 });
    if (r() < 0.1) numeric.push({ column: 'num_min', op: '<=', value: 10 });
    out.push({ lens: LENSES[i % 2], all, anyOf: anyOf.filter((g) => g.length > 0), numeric });
  }
  out.push({ lens: 'leads', all: ['nosuchword'], anyOf: [], numeric: [] });
  out.push({ lens: 'leads', all: [], anyOf: [['F:stage:none']], numeric: [] });
  out.push({ lens: 'grants', all: [], anyOf: [], numeric: [] });
  out.push({ lens: 'leads', all: [], anyOf: [], numeric: [], none: true });
  return out;
}

describe('MemoryIndex', () => {
  it('a segment answers every query in (rank DESC, id) order: conjunction of words, one of a facet group, numeric conditions, ties by id', () => {
    const r = random(1);
    const docs = new Map<string, IndexDoc>();
    const builder = new SegmentBuilder();
    // ids in an order unrelated to rank, some non-ASCII-free but unordered
    for (let i = 0; i < 3000; i++) {
      const doc = makeDoc(r, `ent_${(i * 7919) % 3001}`);
      docs.set(doc.id, doc);
      builder.add(doc);
    }
    const index = new MemoryIndex([builder.build()]);
    expect(index.size).toBe(3000);
    for (const q of queries(r)) {
      for (const limit of [1, 26, 1001]) expect({ q, ids: index.search(q, limit) }).toEqual({ q, ids: brute(docs, q, limit) });
    }
  });

  it("a large segment's dense terms have their bitmaps made ahead, in the background; the answers are the same", async () => {
    const r = random(11);
    const docs = new Map<string, IndexDoc>();
    const builder = new SegmentBuilder();
    for (let i = 0; i < 3000; i++) {
      const doc = makeDoc(r, `ent_${String(i).padStart(5, '0')}`);
      docs.set(doc.id, doc);
      builder.add(doc);
    }
    const segment = builder.build();
    const lists = segment.breakdown().postings;
    const index = new MemoryIndex([segment], 0n, 1000);
    // nothing made in the constructor's turn: a replica is ready at once
    expect(segment.breakdown().postings).toBe(lists);
    await index.warm();
    // every term of these documents is dense (in at least 1 of 32): eight words, three stages, each a bitmap of 3000 bits (a lens is a
    // range of documents, not a term)
    expect(segment.breakdown().postings - lists).toBe(11 * 4 * Math.ceil(3000 / 32));
    for (const q of queries(r)) for (const limit of [1, 26, 1001]) expect({ q, ids: index.search(q, limit) }).toEqual({ q, ids: brute(docs, q, limit) });
    // a segment under the size is left to its queries
    const small = new SegmentBuilder();
    for (const doc of [...docs.values()].slice(0, 500)) small.add(doc);
    const smallSegment = small.build();
    const before = smallSegment.breakdown().postings;
    await new MemoryIndex([smallSegment], 0n, 1000).warm();
    expect(smallSegment.breakdown().postings).toBe(before);
  });

  it('conditions that are all bitmaps answer as brute force across many chunks of words: sparse matches, a facet group, numeric conditions, deletes, a page past the first ones', async () => {
    const r = random(12);
    const docs = new Map<string, IndexDoc>();
    const builder = new SegmentBuilder();
    // every term dense (in at least 1 document of 32), so every query below is answered by bitmaps
    // alone; 'rare' and a stage together are in about 2 % of the documents: 1,001 matches lie
    // past the first 1,024 words (32,768 documents), across the doubling chunks
    for (let i = 0; i < 80_000; i++) {
      const terms = [`F:kind:${r() < 0.5 ? 'a' : 'b'}`];
      if (r() < 0.06) terms.push('rare');
      const stage = r();
      if (stage < 0.2) terms.push('F:stage:seed');
      else if (stage < 0.36) terms.push('F:stage:growth');
      const doc: IndexDoc = { id: `ent_${String(i).padStart(6, '0')}`, lens: 'investors', rank: Math.floor(r() * 5000), numMin: Math.floor(r() * 100), numMax: null, terms };
      docs.set(doc.id, doc);
      builder.add(doc);
    }
    const index = new MemoryIndex([builder.build()], 0n, 1000);
    await index.warm();
    const deleted = [...docs.keys()].filter(() => r() < 0.05);
    index.apply([], deleted);
    for (const id of deleted) docs.delete(id);
    const cases: IndexQuery[] = [
      { lens: 'investors', all: ['rare'], anyOf: [['F:kind:a']], numeric: [] },
      { lens: 'investors', all: ['rare'], anyOf: [['F:stage:seed', 'F:stage:growth']], numeric: [] },
      { lens: 'investors', all: ['rare'], anyOf: [['F:stage:seed', 'F:stage:growth']], numeric: [{ column: 'num_min', op: '>=', value: 50 }] },
      { lens: 'investors', all: [], anyOf: [['F:stage:growth'], ['F:kind:b']], numeric: [] },
    ];
    for (const q of cases) {
      const want = brute(docs, q, 1001);
      expect({ q, ids: index.search(q, 1001) }).toEqual({ q, ids: want });
      expect({ q, page: index.search(q, 1001, 975) }).toEqual({ q, page: want.slice(975) });
    }
  });

  it('an update (same id, new rank and terms) replaces the old version, a delete removes it, in any segment, before, during and after merges', async () => {
    const r = random(2);
    const docs = new Map<string, IndexDoc>();
    const index = new MemoryIndex();
    let next = 0;
    // batches of new documents and of updates of older ones, enough for merges of two tiers
    for (let batch = 0; batch < MERGE_FACTOR * 3 + 3; batch++) {
      const writes: IndexDoc[] = [];
      for (let i = 0; i < 300; i++) {
        const known = [...docs.keys()];
        const id = known.length > 0 && r() < 0.3 ? known[Math.floor(r() * known.length)] : `ent_${String(next++).padStart(6, '0')}`;
        writes.push(makeDoc(r, id));
      }
      const deleted = [...docs.keys()].filter(() => r() < 0.01);
      index.apply(writes, deleted);
      for (const doc of writes) docs.set(doc.id, doc);
      for (const id of deleted) docs.delete(id);
      expect(index.size).toBe(docs.size);
      for (const q of queries(r).slice(0, 6)) expect({ batch, q, ids: index.search(q, 1001) }).toEqual({ batch, q, ids: brute(docs, q, 1001) });
      // a merge in the background takes a slice of the process now and then: the next batch and
      // queries may come while it runs (its sources still answer; what they lose meanwhile, it loses too)
      if (batch % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await index.idle();
    for (const q of queries(r)) expect({ q, ids: index.search(q, 1001) }).toEqual({ q, ids: brute(docs, q, 1001) });
    expect(index.segmentCount).toBeLessThan(MERGE_FACTOR * 2);
    await index.optimize();
    expect(index.segmentCount).toBe(1);
    for (const q of queries(r)) expect({ q, ids: index.search(q, 1001) }).toEqual({ q, ids: brute(docs, q, 1001) });
  });

  it('updates and deletes that come while a merge runs are in the merged segment too', async () => {
    const r = random(3);
    const docs = new Map<string, IndexDoc>();
    const index = new MemoryIndex();
    for (let batch = 0; batch < MERGE_FACTOR; batch++) {
      const writes = Array.from({ length: 6000 }, (_, i) => makeDoc(r, `ent_${batch}_${String(i).padStart(5, '0')}`));
      index.apply(writes);
      for (const doc of writes) docs.set(doc.id, doc);
    }
    // the eighth segment filled tier 0: its merge has begun, and yields to the process between slices
    expect(index.segmentCount).toBe(MERGE_FACTOR);
    const known = [...docs.keys()];
    const moved = Array.from({ length: 500 }, () => makeDoc(r, known[Math.floor(r() * known.length)]));
    const deleted = [...new Set(Array.from({ length: 100 }, () => known[Math.floor(r() * known.length)]))].filter((id) => !moved.some((d) => d.id === id));
    index.apply(moved, deleted);
    for (const doc of moved) docs.set(doc.id, doc);
    for (const id of deleted) docs.delete(id);
    expect(index.segmentCount).toBe(MERGE_FACTOR + 1);
    for (const q of queries(r).slice(0, 8)) expect({ q, ids: index.search(q, 1001) }).toEqual({ q, ids: brute(docs, q, 1001) });
    await index.idle();
    expect(index.segmentCount).toBe(2);
    expect(index.size).toBe(docs.size);
    for (const q of queries(r)) expect({ q, ids: index.search(q, 1001) }).toEqual({ q, ids: brute(docs, q, 1001) });
  });

  it('a merge interleaves segments by rank and leaves deleted documents out', () => {
    const a = new SegmentBuilder();
    const b = new SegmentBuilder();
    const doc = (id: string, rank: number, terms: string[]): IndexDoc => ({ id, lens: 'leads', rank, numMin: null, numMax: null, terms });
    a.add(doc('ent_b', 10, ['x']));
    a.add(doc('ent_d', 5, ['x', 'y']));
    b.add(doc('ent_a', 10, ['x']));
    b.add(doc('ent_c', 7, ['y']));
    b.add(doc('ent_e', 1, ['x']));
    const sa = a.build();
    const sb = b.build();
    sb.delete(sb.find('ent_c'));
    const merged = mergeSegments([sa, sb]);
    expect(merged.size).toBe(4);
    expect([0, 1, 2, 3].map((d) => merged.id(d))).toEqual(['ent_a', 'ent_b', 'ent_d', 'ent_e']);
    expect([...merged.list('x')!]).toEqual([0, 1, 2, 3]);
    expect([...merged.list('y')!]).toEqual([2]);
    expect(merged.find('ent_c')).toBe(-1);
    const index = new MemoryIndex([merged]);
    expect(index.search({ lens: 'leads', all: ['x'], anyOf: [], numeric: [] }, 2)).toEqual(['ent_a', 'ent_b']);
  });

  it('puts a list of ascending runs in order by merging them (mergeRuns): any number of runs, of any length, ties kept', () => {
    const r = random(11);
    for (const runs of [1, 2, 3, 7, 8, 13]) {
      const parts = Array.from({ length: runs }, () => Uint32Array.from({ length: Math.floor(r() * 300) }, () => Math.floor(r() * 2000)).sort());
      const list = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        list.set(p, at);
        at += p.length;
      }
      const expected = [...list].sort((x, y) => x - y);
      mergeRuns(list, new Uint32Array(list.length + 5));
      expect([...list]).toEqual(expected);
    }
    // runs already in order, and an empty list, are left as they are
    const ordered = Uint32Array.from([1, 2, 2, 5, 9, 9, 10]);
    mergeRuns(ordered, new Uint32Array(7));
    expect([...ordered]).toEqual([1, 2, 2, 5, 9, 9, 10]);
    mergeRuns(new Uint32Array(0), new Uint32Array(0));
  });

  it('a merge of many segments with long lists (their runs merged) gives each term the documents brute force gives', () => {
    const r = random(5);
    const docs: IndexDoc[] = [];
    const segments = Array.from({ length: MERGE_FACTOR }, (_, k) => {
      const b = new SegmentBuilder();
      for (let i = 0; i < 150; i++) {
        const doc: IndexDoc = { id: `ent_${k}_${i}`, lens: 'leads', rank: Math.floor(r() * 1000), numMin: null, numMax: null, terms: ['all', ...(r() < 0.5 ? ['half'] : []), ...(r() < 0.05 ? ['rare'] : [])] };
        docs.push(doc);
        b.add(doc);
      }
      return b.build();
    });
    segments[2].delete(segments[2].find('ent_2_7'));
    const merged = mergeSegments(segments);
    const live = docs.filter((d) => d.id !== 'ent_2_7');
    expect(merged.size).toBe(live.length);
    const byId = new Map(Array.from({ length: merged.size }, (_, d) => [merged.id(d), d]));
    for (const term of ['all', 'half', 'rare']) {
      const expected = live.filter((d) => d.terms.includes(term)).map((d) => byId.get(d.id)!).sort((x, y) => x - y);
      expect(expected.length).toBeGreaterThan(term === 'rare' ? 20 : 64);
      expect([...merged.list(term)!]).toEqual(expected);
    }
  });

  it('a builder moved to another thread as its parts (structured clone, buffers transferred) builds the segment it would have built', () => {
    const fill = (b: SegmentBuilder) => {
      for (let i = 0; i < 3000; i++) {
        const id = Buffer.from(`ent_${i}`);
        b.startDoc(id, 0, id.length, (i * 7919) % 500, i % 3 === 0 ? NaN : i, i * 2, ['leads', 'investors', 'grants'][i % 3], i % 2 === 0);
        for (const t of ['all', `w${i % 17}`, `w${i % 17}`, `x${i}`]) b.term(Buffer.from(t), 0, Buffer.byteLength(t));
        b.endDoc();
      }
      for (let a = 0; a < 3000; a++) b.placeAt(a, a >> 3, (a & 7) + 1);
      return b;
    };
    const here = fill(new SegmentBuilder(3000)).build();
    const transfer: ArrayBuffer[] = [];
    const parts = fill(new SegmentBuilder(3000)).parts(transfer);
    const cloned = structuredClone(parts, { transfer: [...new Set(transfer)] });
    // moved, not copied: the sending side's arrays are detached
    expect(parts.ranks.byteLength).toBe(0);
    const there = SegmentBuilder.fromParts(cloned).build();
    const view = (seg: typeof here) => ({
      ids: Array.from({ length: seg.size }, (_, d) => seg.id(d)),
      tids: Array.from({ length: seg.size }, (_, d) => seg.tid(d)),
      ranks: [...seg.ranks], numMin: [...seg.numMin], numMax: [...seg.numMax], lenses: seg.lenses, lensStarts: [...seg.lensStarts],
      fresh: seg.fresh && [...seg.fresh],
      lists: Object.fromEntries(['all', 'w0', 'w16', 'x5', 'x2999'].map((t) => [t, [...(seg.list(t) ?? [])]])),
    });
    expect(view(there)).toEqual(view(here));
    expect(view(there).lists.w16.length).toBe(176);
  });

  it('numbers documents by lens, then rank, in a build and in a merge; a query walks its lens alone', () => {
    const doc = (id: string, lens: string, rank: number, terms: string[]): IndexDoc => ({ id, lens, rank, numMin: null, numMax: null, terms });
    const a = new SegmentBuilder();
    a.add(doc('ent_x10', 'leads', 10, ['w']));
    a.add(doc('ent_y95', 'investors', 95, ['w']));
    a.add(doc('ent_z50', 'grants', 50, ['w']));
    const b = new SegmentBuilder();
    b.add(doc('ent_y90', 'investors', 90, ['w']));
    b.add(doc('ent_y99', 'investors', 99, ['v']));
    b.add(doc('ent_g1', 'grants', 1, ['w']));
    const sa = a.build();
    expect([0, 1, 2].map((d) => sa.id(d))).toEqual(['ent_z50', 'ent_y95', 'ent_x10']);
    expect(sa.lenses).toEqual(['grants', 'investors', 'leads']);
    expect([...sa.lensStarts]).toEqual([0, 1, 2, 3]);
    const sb = b.build();
    sb.delete(sb.find('ent_g1'));
    // by rank alone, ent_y90 (90) would come before ent_x10's successor ent_y95 (95) in a merge of a and b
    const merged = mergeSegments([sa, sb]);
    expect([0, 1, 2, 3, 4].map((d) => merged.id(d))).toEqual(['ent_z50', 'ent_y99', 'ent_y95', 'ent_y90', 'ent_x10']);
    expect(merged.lenses).toEqual(['grants', 'investors', 'leads']);
    expect([...merged.lensStarts]).toEqual([0, 1, 4, 5]);
    expect(merged.lensRange('grants')).toEqual([0, 1]);
    expect(merged.lensRange('nosuch')).toBeUndefined();
    const index = new MemoryIndex([merged]);
    expect(index.search({ lens: 'investors', all: ['w'], anyOf: [], numeric: [] }, 10)).toEqual(['ent_y95', 'ent_y90']);
    expect(index.search({ lens: 'investors', all: [], anyOf: [], numeric: [] }, 10)).toEqual(['ent_y99', 'ent_y95', 'ent_y90']);
    expect(index.search({ lens: 'leads', all: [], anyOf: [['w', 'v']], numeric: [] }, 10)).toEqual(['ent_x10']);
    expect(index.search({ lens: 'nosuch', all: [], anyOf: [], numeric: [] }, 10)).toEqual([]);
    // a lens whose every document is gone leaves the merged segment
    const c = new SegmentBuilder();
    c.add(doc('ent_only', 'patents', 3, ['w']));
    const sc = c.build();
    sc.delete(0);
    expect(mergeSegments([merged, sc]).lenses).toEqual(['grants', 'investors', 'leads']);
  });

  it('bit-packed lists of every density, many blocks long, answer as brute force (seeks inside a block, across blocks, past the end)', () => {
    const r = random(7);
    const densities: [string, number][] = [['d90', 0.9], ['d50', 0.5], ['d10', 0.1], ['d1', 0.01], ['d01', 0.001]];
    const docs = new Map<string, IndexDoc>();
    const builder = new SegmentBuilder();
    for (let i = 0; i < 20_000; i++) {
      const terms = densities.filter(([, p]) => r() < p).map(([t]) => t);
      // a term of one document; two in three ranks tie with many others (ties broken by id)
      if (i === 12_345) terms.push('only');
      const doc: IndexDoc = { id: `ent_${i}`, lens: 'leads', rank: i % 3 === 0 ? Math.floor(r() * 2_000_000_000) : Math.floor(r() * 50), numMin: null, numMax: null, terms };
      docs.set(doc.id, doc);
      builder.add(doc);
    }
    const segment = builder.build();
    const index = new MemoryIndex([segment]);
    const names = densities.map(([t]) => t);
    for (let a = 0; a < names.length; a++) {
      for (let b = a; b < names.length; b++) {
        for (const q of [
          { lens: 'leads', all: [...new Set([names[a], names[b]])], anyOf: [], numeric: [] },
          { lens: 'leads', all: [names[a]], anyOf: [[names[b], 'only']], numeric: [] },
          { lens: 'leads', all: [names[a], 'only'], anyOf: [], numeric: [] },
          // a group of two lists, dense (bitmaps: Segment.bitmap) or not, and documents deleted
          { lens: 'leads', all: [names[a]], anyOf: [[names[b], 'd10']], numeric: [] },
        ] as IndexQuery[]) {
          for (const limit of [1, 26, 1001, 30_000]) expect({ q, limit, ids: index.search(q, limit) }).toEqual({ q, limit, ids: brute(docs, q, limit) });
        }
      }
    }
    // a list decoded is the documents in order
    for (const name of [...names, 'only']) {
      const list = segment.list(name)!;
      const want = [...Array(segment.size).keys()].filter((d) => docs.get(segment.id(d))!.terms.includes(name));
      expect({ name, list: [...list] }).toEqual({ name, list: want });
    }
    // deleted documents are no match, whichever way a query reads the lists
    for (let i = 0; i < 20_000; i += 7) {
      const id = `ent_${i}`;
      segment.delete(segment.find(id));
      docs.delete(id);
    }
    for (const a of names) {
      for (const q of [
        { lens: 'leads', all: [a], anyOf: [], numeric: [] },
        { lens: 'leads', all: ['d90'], anyOf: [[a, 'd50']], numeric: [] },
        { lens: 'leads', all: [a, 'd10'], anyOf: [], numeric: [] },
      ] as IndexQuery[]) {
        for (const limit of [1, 26, 1001, 30_000]) expect({ q, limit, ids: index.search(q, limit) }).toEqual({ q, limit, ids: brute(docs, q, limit) });
      }
    }
  });

  it('a long posting list is walked from its start only as far as the page needs (galloping over the other lists)', () => {
    const builder = new SegmentBuilder();
    for (let i = 0; i < 200_000; i++) {
      builder.add({ id: `ent_${String(i).padStart(7, '0')}`, lens: 'leads', rank: 1_000_000 - i, numMin: null, numMax: null, terms: i % 1000 === 0 ? ['common', 'rare'] : ['common'] });
    }
    const index = new MemoryIndex([builder.build()]);
    expect(index.search({ lens: 'leads', all: ['common', 'rare'], anyOf: [], numeric: [] }, 3)).toEqual(['ent_0000000', 'ent_0001000', 'ent_0002000']);
    expect(index.search({ lens: 'leads', all: ['common'], anyOf: [], numeric: [] }, 2)).toEqual(['ent_0000000', 'ent_0000001']);
  });

  it("keeps each document's heap address through a build's ordering, a replacement and a merge; learns one; unknown is null", async () => {
    const r = random(37);
    const segment = (from: number, to: number, tid: (k: number) => [number, number] | undefined) => {
      const builder = new SegmentBuilder();
      for (let k = from; k < to; k++) {
        const doc = makeDoc(r, `id${k}`);
        const at = tid(k);
        const bytes = Buffer.from(doc.id);
        builder.startDoc(bytes, 0, bytes.length, doc.rank, NaN, NaN, doc.lens, false, at?.[0] ?? 0, at?.[1] ?? 0);
        builder.endDoc();
      }
      return builder.build();
    };
    const index = new MemoryIndex([segment(0, 3000, (k) => (k % 7 === 0 ? undefined : [k * 3 + 0xfffffff0 - 9000, (k % 300) + 1]))]);
    const ids = ['id1', 'id7', 'id2999', 'id500', 'nosuch'];
    expect(index.tidsOf(ids)).toEqual([`(${0xfffffff0 - 8997},2)`, null, `(${0xfffffff0 - 3},300)`, `(${0xfffffff0 - 7500},201)`, null]);
    // replaced by a newer version with another address, in segments enough to be merged
    for (let m = 0; m < MERGE_FACTOR; m++) index.add(segment(m * 10, m * 10 + 10, (k) => [k, 60000 + m]));
    await index.optimize();
    expect(index.segmentCount).toBe(1);
    expect(index.tidsOf(['id1', 'id7', 'id75', 'id2999'])).toEqual(['(1,60000)', '(7,60000)', '(75,60007)', `(${0xfffffff0 - 3},300)`]);
    index.learnTid('id7', '(123,45)');
    index.learnTid('id8', 'not a tid');
    expect(index.tidsOf(['id7', 'id8'])).toEqual(['(123,45)', '(8,60000)']);
    expect(parseTid('(4294967295,65535)')).toEqual([4294967295, 65535]);
    expect([parseTid('(1,0)'), parseTid('(4294967296,1)'), parseTid('(1,65536)'), parseTid('1,2')]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
