import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { SUBJECTS } from '@app/contracts/subjects';
import { EntitiesRepository } from '../../../apps/search/src/entities/entities.repository';
import { MemorySearchIndex } from '../../../apps/search/src/entities/memory-search-index.store';
import { SearchConfig } from '../../../apps/search/src/search.config';
import { SearchReads } from '../../../apps/search/src/search/search-reads.store';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { waitFor } from '../../../tools/mesh/processes';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

describe('search', () => {
  let mesh: TestMesh;
  let live: { ws: string; key: string };
  let test: string;

  async function account(plan: number, lenses?: string) {
    const args = ['workspace:create', '--name', 'search', '--plan-credits', String(plan)];
    if (lenses) args.push('--lenses', lenses);
    const workspace = await mesh.admin(...args);
    const { key } = await mesh.key(workspace.id, 'live');
    const { key: testKey } = await mesh.key(workspace.id, 'test');
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
    return { ws: workspace.id as string, key: key as string, testKey: testKey as string };
  }
  const total = async (key: string) => (await mesh.request('GET', '/credits', { key })).body.balance.total as number;
  const search = (key: string, qs: string) => mesh.request('GET', `/search?${qs}`, { key });

  beforeAll(async () => {
    // leases stay open while pages come (returned by GET /credits here), so that the saga below finds one
    mesh = await TestMesh.start(['gateway', 'billing', 'search'], { SEARCH_REFUND_RETRY_MS: '500', SEARCH_LEASE_IDLE_MS: '60000', SEARCH_LEASE_SWEEP_MS: '200' });
    const seeded = await mesh.admin('search:seed', '--count', '4000');
    expect(seeded).toMatchObject({ inserted: 4000, total: 4000 });
    const a = await account(1000);
    live = { ws: a.ws, key: a.key };
    test = a.testKey;
  }, meshHookTimeoutMs(3));
  afterAll(() => mesh?.close());

  it('returns 25 masked hits a page, has_more, and charges 1 credit on a live key', async () => {
    const before = await total(live.key);
    const res = await search(live.key, 'lens=investors');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'search_results', lens: 'investors', query: '', page: 1, per_page: 25, has_more: true, credits_charged: 1, livemode: true });
    expect(res.body.data).toHaveLength(25);
    for (const hit of res.body.data) {
      expect(hit.entity_id).toMatch(/^ent_/);
      expect(hit).not.toHaveProperty('email');
      expect(hit).not.toHaveProperty('phone');
      if (hit.email_masked) expect(hit.email_masked).toMatch(/^[a-z]\*\*\*@[a-z0-9.]+$/);
      expect(hit.revealed).toBe(false);
      expect(hit.match_score).toBeNull();
      expect(hit.details).toEqual(expect.objectContaining({ stages: expect.any(Array), sectors: expect.any(Array), check_size_usd: { min: expect.any(Number), max: expect.any(Number) }, last_filing_at: expect.any(String) }));
      expect(hit.sources[0]).toEqual(expect.objectContaining({ provider: 'sec_edgar', source_url: expect.stringMatching(/^https:/), fetched_at: expect.any(String) }));
    }
    expect(res.body.data.some((h: any) => h.email_masked)).toBe(true);
    expect(await total(live.key)).toBe(before - 1);
    const ledger = (await mesh.request('GET', '/credits', { key: live.key })).body.ledger;
    expect(ledger[0]).toMatchObject({ type: 'consume', amount: -1, reason: 'search_page', ref: expect.stringMatching(/^search:req_/) });
  });

  it('details per lens', async () => {
    const r = (await search(live.key, 'lens=researchers')).body.data[0];
    expect(r.details).toEqual(expect.objectContaining({ topics: expect.any(Array), works_count: expect.any(Number), orcid: expect.any(String) }));
    const g = (await search(live.key, 'lens=grants')).body.data[0];
    expect(g.details).toEqual(expect.objectContaining({ agency: expect.any(String), amount: expect.any(Number), deadline: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) }));
    expect(g.match_score).toBeNull();
  });

  it('applies free text and filters of the lens', async () => {
    const res = await search(live.key, 'lens=investors&q=fintech&filters[stage]=seed&filters[check_min]=500000');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const hit of res.body.data) {
      expect(hit.details.stages).toContain('seed');
      expect(hit.details.check_size_usd.max).toBeGreaterThanOrEqual(500000);
    }
    const two = await search(live.key, 'lens=leads&filters[country]=DE&filters[country]=FR');
    expect(two.body.data.length).toBeGreaterThan(0);
    for (const hit of two.body.data) expect(hit.location).toMatch(/, (DE|FR)$/);
    const name = two.body.data[0].name;
    const byName = await search(live.key, `lens=leads&q=${encodeURIComponent(name)}`);
    expect(byName.body.data.map((h: any) => h.name)).toContain(name);
    const grants = await search(live.key, 'lens=grants&filters[agency]=NIH&filters[deadline_before]=2026-06-01');
    for (const hit of grants.body.data) {
      expect(hit.details.agency).toBe('NIH');
      expect(hit.details.deadline < '2026-06-01').toBe(true);
    }
    const works = await search(live.key, 'lens=researchers&filters[min_works]=300&filters[region]=europe');
    for (const hit of works.body.data) expect(hit.details.works_count).toBeGreaterThanOrEqual(300);
  });

  it('hits come in the order of one ORDER BY over every match, whatever page is asked first', async () => {
    const walk = async (qs: string, order: number[]) => {
      const pages = new Map<number, string[]>();
      for (const page of order) {
        const res = await search(live.key, `${qs}&page=${page}`);
        expect(res.status).toBe(200);
        pages.set(page, res.body.data.map((h: any) => h.entity_id));
      }
      return [...pages.keys()].sort((a, b) => a - b).flatMap((p) => pages.get(p) as string[]);
    };
    const ordered = async (where: string, limit: number) =>
      (await mesh.query('search', `SELECT id FROM entities WHERE ${where} ORDER BY rank_score DESC, id LIMIT ${limit}`)).map((r) => r.id);
    // no words or facets: the walk of (lens, rank) for any page
    const leads = await walk('lens=leads', [1, 9, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14]);
    expect(leads).toEqual(await ordered(`lens = 'leads'`, 350));
    // free text matching a handful of the seed's 1,000 investors ranked at the top of the scale
    // (rank >= 975,000) and more below it; page 3 asked first, then the pages before it
    const fintechWhere = `lens = 'investors' AND to_tsvector('simple', search_text) @@ plainto_tsquery('simple', 'fintech')`;
    const expectedFintech = await ordered(fintechWhere, 200);
    expect(expectedFintech.length).toBeGreaterThan(100);
    expect((await ordered(`${fintechWhere} AND rank_score >= 975000`, 200)).length).toBeGreaterThan(0);
    const fintech = await walk('lens=investors&q=fintech', [1, 2, 3, 4, 5, 6, 7, 8]);
    expect(fintech).toEqual(expectedFintech.slice(0, fintech.length));
    expect(fintech.length).toBe(Math.min(200, expectedFintech.length));
    const seedWhere = `${fintechWhere} AND 'stage:seed' = ANY (facets)`;
    const seedStage = await walk('lens=investors&q=fintech&filters[stage]=seed', [3, 1, 2, 4]);
    const expectedSeed = await ordered(seedWhere, 100);
    expect(expectedSeed.length).toBeGreaterThan(25);
    expect(seedStage).toEqual(expectedSeed);
    // a top group that fills page 1 on its own (40 of 70 entities with the word ranked in it):
    // page 1 from the top group alone, page 2 goes on below it
    const entity = (n: number, rank: number) => ({
      ext_key: `test:top-${n}`, lens: 'leads', name: `Zephyrtop Person ${n}`, organization: 'Top Group Example', domain: 'top.example.com', details: {},
      facets: [], rank_score: rank, sources: [{ field: 'name', value: `Zephyrtop Person ${n}`, provider: 'api', source_url: 'https://top.example.com', fetched_at: '2026-11-01T00:00:00.000Z' }],
    });
    const entities = Array.from({ length: 70 }, (_, n) => entity(n, n < 40 ? 975_000 + (n % 7) * 3_000 : 400_000 + n * 1_000));
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities })).err).toBeUndefined();
    const zephyr = await walk('lens=leads&q=zephyrtop', [1, 2, 3]);
    expect(zephyr).toEqual(await ordered(`lens = 'leads' AND to_tsvector('simple', search_text) @@ plainto_tsquery('simple', 'zephyrtop')`, 100));
    expect(zephyr).toHaveLength(70);
    // a write into the top group between a page 1 read from the top group alone and page 2: page 2
    // goes on from the new generation (the top group's ids read again), never from the stale list
    const both = 'lens=leads&q=zephyrtop%20person';
    expect((await search(live.key, `${both}&page=1`)).body.data).toHaveLength(25);
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [entity(70, 990_500)] })).err).toBeUndefined();
    const afterWrite = await walk(both, [2, 1, 3]);
    expect(afterWrite).toEqual(await ordered(`lens = 'leads' AND to_tsvector('simple', search_text) @@ plainto_tsquery('simple', 'zephyrtop person')`, 100));
    expect(afterWrite).toHaveLength(71);
  });

  it('pages 1..40 without overlap; page 41 and other bad input are 400 naming the parameter', async () => {
    const p1 = await search(live.key, 'lens=leads&page=1');
    const p2 = await search(live.key, 'lens=leads&page=2');
    const ids1 = new Set(p1.body.data.map((h: any) => h.entity_id));
    expect(p2.body.data.some((h: any) => ids1.has(h.entity_id))).toBe(false);
    const p40 = await search(live.key, 'lens=leads&page=40');
    expect(p40.status).toBe(200);
    expect(p40.body.data).toHaveLength(25);
    const before = await total(live.key);
    expectApiError(await search(live.key, 'lens=leads&page=41'), 400, 'invalid_request', 'page');
    expectApiError(await search(live.key, 'lens=leads&page=0'), 400, 'invalid_request', 'page');
    expectApiError(await search(live.key, 'q=x'), 400, 'invalid_request', 'lens');
    expectApiError(await search(live.key, 'lens=planets'), 400, 'invalid_request', 'lens');
    expectApiError(await search(live.key, `lens=leads&q=${'a'.repeat(201)}`), 400, 'invalid_request', 'q');
    expectApiError(await search(live.key, 'lens=leads&filters[stage]=seed'), 400, 'invalid_request', 'filters[stage]');
    expectApiError(await search(live.key, 'lens=investors&filters[stage]=series_z'), 400, 'invalid_request', 'filters[stage]');
    expectApiError(await search(live.key, 'lens=investors&filters[check_min]=-5'), 400, 'invalid_request', 'filters[check_min]');
    expectApiError(await search(live.key, 'lens=grants&filters[deadline_before]=2026-02-30'), 400, 'invalid_request', 'filters[deadline_before]');
    expectApiError(await search(live.key, 'lens=leads&sort=name'), 400, 'invalid_request', 'sort');
    expect(await total(live.key)).toBe(before);
  });

  it('test keys: page 1 free with livemode false, later pages 400', async () => {
    const before = await total(live.key);
    const res = await search(test, 'lens=grants');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ credits_charged: 0, livemode: false, page: 1 });
    expectApiError(await search(test, 'lens=grants&page=2'), 400, 'invalid_request', 'page');
    expect(await total(live.key)).toBe(before);
  });

  it('402 insufficient_credits charges nothing; a lens off the plan is 403', async () => {
    const poor = await account(0, 'leads,grants');
    expectApiError(await search(poor.key, 'lens=leads'), 402, 'insufficient_credits');
    expect(await mesh.query('billing', 'SELECT 1 FROM ledger_entries WHERE workspace_id = $1', [poor.ws])).toEqual([]);
    expectApiError(await search(poor.key, 'lens=investors'), 403, 'permission_denied', 'lens');
  });

  it('investors carry match_score 0..100 against the opportunity profile', async () => {
    const file = join(tmpdir(), `profile-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify({ sectors: ['fintech'], stage: 'seed', amount_usd: 1_000_000, location: 'San Francisco' }));
    expect(await mesh.admin('profile:set', '--workspace', live.ws, '--file', file)).toMatchObject({ stage: 'seed' });
    const res = await search(live.key, 'lens=investors&filters[sector]=fintech&filters[stage]=seed');
    for (const hit of res.body.data) {
      expect(hit.match_score).toBeGreaterThanOrEqual(65);
      expect(hit.match_score).toBeLessThanOrEqual(100);
    }
    // a query whose ranked ids were kept since the first test (match_score null then): the profile
    // is read with every page, never kept
    const again = await search(live.key, 'lens=investors');
    expect(again.body.data).toHaveLength(25);
    for (const hit of again.body.data) expect(hit.match_score).toEqual(expect.any(Number));
    const leads = await search(live.key, 'lens=leads');
    expect(leads.body.data[0].match_score).toBeNull();
  });

  it('pages asked in one turn are one statement, each page as it is alone: its workspace\'s reveals and profile, an empty page', async () => {
    const pool = new Pool({ connectionString: mesh.databaseUrl('search'), max: 2 });
    const config = { rankedCacheEntries: 16, indexPollMs: 3_600_000 } as SearchConfig;
    const reads = new SearchReads(pool, config, undefined as never);
    // a search process's index, built from the table as at its start
    const index = new MemorySearchIndex(pool, config, reads);
    try {
      await index.onModuleInit();
      const repository = new EntitiesRepository(pool, reads, index);
      const page = (ws: string, q: string, number: number) => repository.search(ws, 'investors', q, [], (number - 1) * 25, 26);
      // the queries are ranked (and kept) first, so that the pages below are reads of their rows only
      const first = await page('ws_batch_a', '', 40);
      expect(first.rows.length).toBeGreaterThan(0);
      expect((await page('ws_batch_a', 'zzzz-matches-nothing', 1)).rows).toEqual([]);
      const revealed = first.rows[0].id;
      await mesh.query('search', `INSERT INTO reveals (id, workspace_id, entity_id, status, email_status, credits_charged) VALUES ('rev_batch_a', 'ws_batch_a', $1, 'revealed', 'valid', 1)`, [revealed]);
      await mesh.query('search', `INSERT INTO opportunity_profiles (workspace_id, profile) VALUES ('ws_batch_a', '{"stage": "seed"}')`);

      const asks = [['ws_batch_a', '', 1], ['ws_batch_b', '', 1], ['ws_batch_a', '', 40], ['ws_batch_b', 'zzzz-matches-nothing', 1], ['ws_batch_b', '', 40], ['ws_batch_a', '', 2]] as const;
      const statements = jest.spyOn(reads, 'run');
      const together = await Promise.all(asks.map(([ws, q, n]) => page(ws, q, n)));
      expect(statements).toHaveBeenCalledTimes(1);
      statements.mockRestore();
      const alone = [];
      for (const [ws, q, n] of asks) alone.push(await page(ws, q, n));
      expect(together).toEqual(alone);

      const [a1, b1, a40, empty, b40, a2] = together;
      expect(a1.profile).toEqual({ stage: 'seed' });
      expect(b1.profile).toBeUndefined();
      expect(empty).toMatchObject({ rows: [], profile: undefined });
      expect(a1.rows).toHaveLength(26);
      expect(a2.rows[0].id).toBe(a1.rows[25].id);
      expect(b1.rows.map((r) => r.id)).toEqual(a1.rows.map((r) => r.id));
      expect(a40.rows[0]).toMatchObject({ id: revealed, revealed: true, revealed_email_status: 'valid' });
      expect(b40.rows[0]).toMatchObject({ id: revealed, revealed: false, revealed_email_status: null });
      expect(a40.rows.slice(1).every((r) => r.revealed === false)).toBe(true);
    } finally {
      index.onApplicationShutdown();
      await pool.end();
    }
  });

  it('ingest stores every value as given: tabs, line breaks, backslashes, quotes, braces, "\\N" and "NULL"; a lone surrogate as U+FFFD', async () => {
    const awkward = {
      ext_key: 'test:awkward\t1', lens: 'leads', name: 'Tabby\tNewline\nReturn\rBack\\slash Zyxawk', person_name: '\\N', first_name: 'NULL',
      last_name: '', title: 'say "hi", {ok}', organization: 'Lone \ud800 High', location: 'Lone \udc00 Low', country: null, domain: 'awkward.example.com',
      email: null, phone: null,
      details: { note: 'C:\\path "quoted"\ttab\nline', literal: '\\ud800 is six characters', lone: 'x\udbff', nested: { list: [1, null, '\\N'] } },
      facets: ['industry:a,b', 'industry:"quoted"', 'industry:{brace}', 'industry:back\\slash', 'NULL', 'industry:tab\there', 'industry:lone \ud800'],
      rank_score: 123, sources: [{ field: 'name', value: 'Tabby\tNewline\nReturn\rBack\\slash', provider: 'api', source_url: 'https://awkward.example.com/?q=\\', fetched_at: '2026-11-01T00:00:00.000Z' }],
    };
    // a batch PostgreSQL refuses (a number that is not one) writes nothing, and the next batch goes in
    const refused = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [{ ...awkward, num_min: 'many' }] });
    expect(refused.err).toBeDefined();
    expect(await mesh.query('search', 'SELECT 1 FROM entities WHERE ext_key = $1', [awkward.ext_key])).toHaveLength(0);
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [awkward] })).err).toBeUndefined();
    const [row] = await mesh.query('search', `SELECT ext_key, name, person_name, first_name, last_name, title, organization, location, country, email, phone,
      details, facets, rank_score, sources, terms = strip(to_tsvector('simple', search_text)) || array_to_tsvector(ARRAY(SELECT 'F:' || f FROM unnest(facets) AS f)) AS terms_ok
      FROM entities WHERE ext_key = $1`, [awkward.ext_key]);
    const fffd = (s: string) => s.replace(/[\ud800-\udfff]/g, '\ufffd');
    expect(row).toEqual({
      ext_key: awkward.ext_key, name: awkward.name, person_name: '\\N', first_name: 'NULL', last_name: '', title: awkward.title,
      organization: fffd(awkward.organization), location: fffd(awkward.location), country: null, email: null, phone: null,
      details: { ...awkward.details, lone: 'x\ufffd' }, facets: awkward.facets.map(fffd), rank_score: 123, sources: awkward.sources, terms_ok: true,
    });
    expect(row.details.literal).toBe('\\ud800 is six characters');
    // and it is found by its words and its facets
    const hit = (await search(live.key, `lens=leads&q=zyxawk&filters[industry]=${encodeURIComponent('back\\slash')}`)).body;
    expect(hit.data.map((h: any) => h.name)).toEqual([awkward.name]);
    expect(hit.data[0].sources).toEqual(awkward.sources);
  });

  it('ingest reads each provider file and re-runs update the same entities; search:seed --if-empty skips a filled index', async () => {
    const files: [string, string][] = [
      ['openalex', 'openalex-authors.json'], ['openalex', 'openalex-institutions.json'], ['orcid', 'orcid-record.json'],
      ['sec_edgar', 'sec-edgar-form-d-primary_doc.xml'], ['nih_reporter', 'nih-reporter-projects.json'], ['nsf_awards', 'nsf-awards.json'],
      ['grants_gov', 'grants-gov-extract.xml'], ['opencorporates', 'opencorporates-companies.json'],
    ];
    for (const [provider, file] of files) {
      const first = await mesh.admin('ingest', '--provider', provider, '--file', join(__dirname, '../../../apps/search/samples', file));
      expect(first.inserted).toBe(first.records);
      if (provider !== 'sec_edgar' && provider !== 'grants_gov') continue; // a re-run of two formats is enough to prove idempotency
      const again = await mesh.admin('ingest', '--provider', provider, '--file', join(__dirname, '../../../apps/search/samples', file));
      expect(again).toMatchObject({ inserted: 0, updated: first.records });
    }
    const fund = await search(live.key, 'lens=investors&q=Harbor%20Peak&filters[type]=vc');
    expect(fund.body.data[0]).toMatchObject({ name: 'Harbor Peak Ventures Fund II, L.P.', person_name: 'Maria Alvarez', phone_masked: '+1415***0142' });
    expect(fund.body.data[0].sources[0]).toMatchObject({ provider: 'sec_edgar', source_url: expect.stringContaining('sec.gov') });
    const grants = await search(live.key, 'lens=grants&filters[agency]=DOE&filters[mechanism]=cooperative_agreement&q=manufacturing');
    expect(grants.body.data.map((h: any) => h.name)).toContain('Advanced Manufacturing Research Program');
    expect(await mesh.admin('search:seed', '--count', '10', '--if-empty', 'true')).toMatchObject({ skipped: true });
    // every entity written (seeded, ingested, re-ingested) is searchable by exactly its words and facets
    const terms = await mesh.query('search', `SELECT count(*)::int AS n, count(*) FILTER (WHERE terms IS DISTINCT FROM
      strip(to_tsvector('simple', search_text)) || array_to_tsvector(ARRAY(SELECT 'F:' || f FROM unnest(facets) AS f WHERE f IS NOT NULL)))::int AS wrong FROM entities`);
    expect(terms[0].n).toBeGreaterThan(4000);
    expect(terms[0].wrong).toBe(0);
    const bad = await mesh.adminRaw(['ingest', '--provider', 'myspace', '--file', 'x']);
    expect(bad.code).toBe(2);
  });

  it('a write reaches the next search: pages kept per query are read again once entities change', async () => {
    const first = await search(live.key, 'lens=leads');
    expect(first.status).toBe(200);
    expect(first.body.data.map((h: any) => h.name)).not.toContain('Quillon Marsh');
    const entity = (name: string, rank: number) => ({
      ext_key: 'test:cache-1', lens: 'leads', name, person_name: name, organization: 'Cache Example', domain: 'cache.example.com', details: {},
      facets: [], rank_score: rank, sources: [{ field: 'name', value: name, provider: 'api', source_url: 'https://cache.example.com', fetched_at: '2026-11-01T00:00:00.000Z' }],
    });
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [entity('Quillon Marsh', 2_000_000)] })).err).toBeUndefined();
    const second = await search(live.key, 'lens=leads');
    expect(second.body.data[0]).toMatchObject({ name: 'Quillon Marsh' });
    expect(second.body.data.slice(1)).toEqual(first.body.data.slice(0, 24));
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [entity('Quillon Marsh', -1)] })).err).toBeUndefined();
    const third = await search(live.key, 'lens=leads');
    expect(third.body.data).toEqual(first.body.data);
  });

  it('saga: with billing stopped a workspace holding a lease is still served from it; one without gets no page and no credit is taken', async () => {
    // the live workspace's leases returned (GET /credits settles them), then pages until it holds one with room
    await total(live.key);
    const room = async () => Number((await mesh.query('search', `SELECT coalesce(sum(size - used), 0) AS n FROM credit_leases WHERE workspace_id = $1 AND state = 'open'`, [live.ws]))[0].n);
    for (let i = 0; i < 5 && (await room()) === 0; i++) expect((await search(live.key, 'lens=leads')).status).toBe(200);
    expect(await room()).toBeGreaterThan(0);
    const other = await account(10);
    const before = Number((await mesh.query('billing', 'SELECT count(*) AS n FROM ledger_entries WHERE workspace_id = $1', [other.ws]))[0].n);
    await mesh.stopApp('billing');
    // a served page does not wait on billing
    const served = await search(live.key, 'lens=leads');
    expect(served.status).toBe(200);
    expect(served.body.credits_charged).toBe(1);
    // without a lease, billing must be asked for one: no answer, no page, nothing charged; each lease
    // asked for (the gateway asks search again after an internal_error) is recorded, to be closed at
    // billing when it is back (its answer may have been lost)
    const res = await search(other.key, 'lens=leads');
    expect(res.status).toBe(500);
    expect(res.body.data).toBeUndefined();
    const asked = await mesh.query('search', `SELECT id FROM credit_leases WHERE workspace_id = $1 AND state <> 'settled'`, [other.ws]);
    expect(asked.length).toBeGreaterThanOrEqual(1);
    const ids = asked.map((a) => a.id);
    await mesh.startApp('billing');
    await waitFor('the leases asked for settled', async () => (await mesh.query('search', `SELECT 1 FROM credit_leases WHERE id = ANY($1) AND state = 'settled'`, [ids])).length === ids.length, allowance(30_000));
    expect(await mesh.query('billing', 'SELECT state, amount FROM credit_leases WHERE id = ANY($1)', [ids])).toEqual(ids.map(() => ({ state: 'settled', amount: 0 })));
    const after = await mesh.query('billing', `SELECT type FROM ledger_entries WHERE workspace_id = $1 ORDER BY id`, [other.ws]);
    expect(after).toHaveLength(before);
    expect((await search(other.key, 'lens=leads')).status).toBe(200);
    // and the page served while billing was away is in the ledger once its lease is settled
    expect((await mesh.request('GET', '/credits', { key: live.key })).body.ledger.map((e: any) => e.ref)).toContain(`search:${served.headers.get('request-id')}`);
  });
});
