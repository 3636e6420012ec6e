import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { SUBJECTS } from '@app/contracts/subjects';
import { freePort } from '../../../tools/mesh/processes';
import { TestMesh } from '../../harness';
import { createLead } from '../../support/leads';
import {
  createExport, csvObjects, download, EXPORT_COLUMNS, expectExport, parseCsv, waitForExport,
} from '../../support/exports';
import { expectApiError, expectRateLimitHeaders, expectRequestId } from '../../support/gateway-assertions';

type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

const SECRET = 'e2e-export-signing-secret';
const sign = (id: string, expires: number) => createHmac('sha256', SECRET).update(`${id}.${expires}`).digest('hex');

/** POST /exports, GET /exports/{id} and the signed download link, through the gateway. */
describe('exports end to end', () => {
  let mesh: TestMesh;
  let storageDir: string;
  let base: string;
  const ws: Record<'csv' | 'filters' | 'bad' | 'links' | 'stranger', Workspace> = {} as any;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'exports-e2e-'));
    const gatewayPort = await freePort();
    base = `http://127.0.0.1:${gatewayPort}/api/v1`;
    mesh = await TestMesh.start([], {
      EXPORT_SIGNING_SECRET: SECRET, PUBLIC_API_URL: base, EXPORT_STORAGE_DIR: storageDir, EXPORT_POLL_MS: '200',
    });
    await Promise.all([mesh.startApp('gateway', gatewayPort), mesh.startApp('crm')]);
    await Promise.all((['csv', 'filters', 'bad', 'links', 'stranger'] as const).map(async (name) => {
      ws[name] = await mesh.workspace();
    }));
  });
  afterAll(async () => {
    await mesh?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  describe('CSV and JSON of a workspace', () => {
    let key: string;
    let tricky: any;
    let revealed: any;
    let plain: any;
    beforeAll(async () => {
      key = ws.csv.key;
      tricky = await createLead(mesh, key, {
        full_name: 'Doe, "Jane"', first_name: 'Jane', title: 'CEO\nFounder', email: 'jane@tricky.example', phone: '+44 20 7946 0958',
        company_name: '=HYPERLINK("http://evil.example","click")', country: 'GB', tags: ['vip', 'b2b'], website: 'https://tricky.example',
      });
      revealed = await createLead(mesh, key, {
        full_name: '@risky', title: '-5', email: 'shown@revealed.example', phone: '+1 415 555 0100', company_name: '+cmd', lens: 'investors',
        lawful_basis: 'consent',
      });
      plain = await createLead(mesh, key, { full_name: 'Plain Person', email: 'plain@example.com', title: 'Engineer\r\nLead' });
      await mesh.query('crm', 'UPDATE leads SET revealed = true WHERE id = $1', [revealed.id]);
    });

    it('POST /exports is 202 queued; polling reaches completed with row_count and a signed link valid 24 h; the CSV is RFC 4180 and spreadsheet-safe', async () => {
      const before = Date.now();
      const res = await createExport(mesh, key, { format: 'csv' });
      expectRequestId(res);
      expect(res.body).toMatchObject({ status: 'queued', format: 'csv', filter: {}, livemode: true, row_count: null, download_url: null });
      expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 5000);

      const done = await waitForExport(mesh, key, res.body.id);
      expect(done).toMatchObject({ id: res.body.id, status: 'completed', row_count: 3, format: 'csv', created_at: res.body.created_at });
      expect(done.download_url.startsWith(`${base}/exports/${done.id}/download?`)).toBe(true);

      // no API key: the signature is the credential
      const file = await download(done.download_url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${done.id}.csv"`);
      expect(file.headers.get('request-id')).toMatch(/\S/);

      const lines = file.text.split('\r\n');
      expect(lines[0]).toBe(EXPORT_COLUMNS.join(','));
      expect(file.text.endsWith('\r\n')).toBe(true);
      // the raw bytes: commas and quotes quoted with doubled quotes, embedded newlines kept in quotes
      expect(file.text).toContain('"Doe, ""Jane"""');
      expect(file.text).toContain('"CEO\nFounder"');
      expect(file.text).toContain('"Engineer\r\nLead"');
      expect(file.text).toContain('"\'=HYPERLINK(""http://evil.example"",""click"")"');

      const rows = csvObjects(file.text);
      expect(rows.map((r) => r.id)).toEqual([tricky.id, revealed.id, plain.id]); // oldest first
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      expect(byId[tricky.id]).toEqual({
        id: tricky.id, full_name: 'Doe, "Jane"', first_name: 'Jane', last_name: '', title: 'CEO\nFounder',
        email: '', phone: '', // not revealed: contact fields stay in the CRM
        company_name: '\'=HYPERLINK("http://evil.example","click")', website: 'https://tricky.example', country: 'GB', lens: 'leads',
        tags: tricky.tags.join(';'), stage: tricky.stage?.name ?? '', lawful_basis: 'legitimate_interest',
        created_at: tricky.created_at, updated_at: tricky.updated_at,
      });
      expect(tricky.tags.join(';').split(';').sort()).toEqual(['b2b', 'vip']);
      expect(byId[revealed.id]).toMatchObject({
        full_name: "'@risky", title: "'-5", company_name: "'+cmd", email: 'shown@revealed.example', phone: "'+14155550100",
        lens: 'investors', lawful_basis: 'consent',
      });
      expect(byId[plain.id]).toMatchObject({ full_name: 'Plain Person', email: '', phone: '', title: 'Engineer\r\nLead' });

      // GET /exports/{id} keeps answering the same
      const again = await mesh.request('GET', `/exports/${done.id}`, { key });
      expect(again.body).toEqual(done);
    });

    it('JSON is one array of objects with the same columns; tags an array; unrevealed email and phone null', async () => {
      const res = await createExport(mesh, key, { format: 'json' });
      const done = await waitForExport(mesh, key, res.body.id);
      expect(done).toMatchObject({ status: 'completed', row_count: 3, format: 'json' });
      const file = await download(done.download_url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/json');
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${done.id}.json"`);
      expect(Array.isArray(file.body)).toBe(true);
      expect(file.body).toHaveLength(3);
      for (const row of file.body) expect(Object.keys(row)).toEqual(EXPORT_COLUMNS);
      const byId = Object.fromEntries(file.body.map((r: any) => [r.id, r]));
      expect(byId[tricky.id]).toMatchObject({
        full_name: 'Doe, "Jane"', title: 'CEO\nFounder', email: null, phone: null, last_name: null,
        company_name: '=HYPERLINK("http://evil.example","click")', created_at: tricky.created_at, updated_at: tricky.updated_at,
      });
      expect([...byId[tricky.id].tags].sort()).toEqual(['b2b', 'vip']);
      expect(byId[revealed.id]).toMatchObject({ email: 'shown@revealed.example', phone: '+14155550100', full_name: '@risky', tags: [] });
    });

    it('every accepted export is in the gateway audit log with key, format, filter and request id', async () => {
      const res = await createExport(mesh, key, { format: 'csv', filter: { lens: 'investors' } });
      const rows = await mesh.query('gateway', `SELECT * FROM audit_log WHERE action = 'export.created' AND object_id = $1`, [res.body.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        workspace_id: ws.csv.workspace.id, key_id: ws.csv.keyId, action: 'export.created', object_id: res.body.id,
        details: { format: 'csv', filter: { lens: 'investors' }, livemode: true }, request_id: res.headers.get('request-id'),
      });
      expect(rows[0].created_at).toBeInstanceOf(Date);
      const done = await waitForExport(mesh, key, res.body.id);
      expect(done.row_count).toBe(1);
    });

    it('an Idempotency-Key replays the same export: one job, one audit entry', async () => {
      const headers = { 'Idempotency-Key': `exp-${Date.now()}` };
      const first = await createExport(mesh, key, { format: 'json', filter: { tag: 'vip' } }, headers);
      const second = await mesh.request('POST', '/exports', { key, body: { format: 'json', filter: { tag: 'vip' } }, headers });
      expect(second.status).toBe(202);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body.id).toBe(first.body.id);
      const audit = await mesh.query('gateway', `SELECT 1 FROM audit_log WHERE object_id = $1`, [first.body.id]);
      expect(audit).toHaveLength(1);
      const other = await mesh.request('POST', '/exports', { key, body: { format: 'csv' }, headers });
      expectApiError(other, 409, 'conflict', 'Idempotency-Key');
    });

    it('a test key queues exports with livemode false', async () => {
      const testKey = await mesh.key(ws.csv.workspace.id, 'test');
      const res = await createExport(mesh, testKey.key, { format: 'csv' });
      expect(res.body.livemode).toBe(false);
      const done = await waitForExport(mesh, testKey.key, res.body.id);
      expect(done).toMatchObject({ livemode: false, row_count: expect.any(Number) });
    });
  });

  describe('crm over NATS: a retry after a gateway timeout', () => {
    it('the same Idempotency-Key returns the export already queued; another body is 409; after 24 hours the key is free', async () => {
      const workspaceId = ws.stranger.workspace.id;
      const ctx = { workspace_id: workspaceId, idempotency: { key: 'timeout-retry', request_hash: 'hash-1' } };
      const first = await mesh.rpc(SUBJECTS.crm.exportsCreate, ctx, { format: 'csv' });
      const retry = await mesh.rpc(SUBJECTS.crm.exportsCreate, ctx, { format: 'csv' });
      expect(first.response.id).toMatch(/^exp_/);
      expect(retry.response.id).toBe(first.response.id);
      const other = await mesh.rpc(SUBJECTS.crm.exportsCreate, { ...ctx, idempotency: { key: 'timeout-retry', request_hash: 'hash-2' } }, { format: 'json' });
      expect(other.err).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
      await mesh.query('crm', `UPDATE exports SET created_at = now() - interval '25 hours' WHERE id = $1`, [first.response.id]);
      const later = await mesh.rpc(SUBJECTS.crm.exportsCreate, { ...ctx, idempotency: { key: 'timeout-retry', request_hash: 'hash-2' } }, { format: 'json' });
      expect(later.response.id).not.toBe(first.response.id);
      const jobs = await mesh.query('crm', 'SELECT count(*)::int AS n FROM exports WHERE id = ANY($1)', [[first.response.id, later.response.id]]);
      expect(jobs[0].n).toBe(2);
    });
  });

  describe('ExportFilter', () => {
    let key: string;
    const leads: Record<string, any> = {};
    beforeAll(async () => {
      key = ws.filters.key;
      leads.investor = await createLead(mesh, key, { full_name: 'Ivy Investor', lens: 'investors', tags: ['vip'] });
      leads.researcher = await createLead(mesh, key, { full_name: 'Rita Researcher', lens: 'researchers', tags: ['vip', 'ai'] });
      leads.staged = await createLead(mesh, key, { full_name: 'Stan Staged', tags: ['ai'] });
      leads.old = await createLead(mesh, key, { full_name: 'Olga Old' });
      await mesh.query('crm', `UPDATE leads SET pipeline_id = 'pl_exportfilter', stage_id = 'st_exportwon', stage_name = 'Won, finally' WHERE id = $1`, [leads.staged.id]);
      await mesh.query('crm', `UPDATE leads SET pipeline_id = 'pl_exportfilter', stage_id = 'st_exportopen', stage_name = 'Open' WHERE id = $1`, [leads.researcher.id]);
      await mesh.query('crm', `UPDATE leads SET updated_at = '2020-01-01T00:00:00Z' WHERE id = $1`, [leads.old.id]);
      // another workspace's leads never appear
      await createLead(mesh, ws.stranger.key, { full_name: 'Stranger', lens: 'investors', tags: ['vip'] });
    });

    const exported = async (filter: object): Promise<string[]> => {
      const res = await createExport(mesh, key, { format: 'csv', filter });
      expect(res.body.filter).toEqual(filter);
      const done = await waitForExport(mesh, key, res.body.id);
      const rows = csvObjects((await download(done.download_url)).text);
      expect(done.row_count).toBe(rows.length);
      return rows.map((r) => r.full_name).sort();
    };

    it('each filter field selects its leads; an empty filter exports every lead of the workspace', async () => {
      const results = await Promise.all([
        exported({}),
        exported({ lens: 'investors' }),
        exported({ tag: 'vip' }),
        exported({ tag: 'ai', lens: 'leads' }),
        exported({ pipeline_id: 'pl_exportfilter' }),
        exported({ stage_id: 'st_exportwon' }),
        exported({ updated_since: '2021-01-01T00:00:00Z' }),
        exported({ updated_since: '2019-12-31T23:00:00-01:00' }),
        exported({ tag: 'nobody-has-this' }),
      ]);
      expect(results).toEqual([
        ['Ivy Investor', 'Olga Old', 'Rita Researcher', 'Stan Staged'],
        ['Ivy Investor'],
        ['Ivy Investor', 'Rita Researcher'],
        ['Stan Staged'],
        ['Rita Researcher', 'Stan Staged'],
        ['Stan Staged'],
        ['Ivy Investor', 'Rita Researcher', 'Stan Staged'],
        ['Ivy Investor', 'Rita Researcher', 'Stan Staged'],
        [],
      ]);
    });

    it('the stage column holds the stage name (quoted when it needs to be)', async () => {
      const res = await createExport(mesh, key, { format: 'csv', filter: { stage_id: 'st_exportwon' } });
      const done = await waitForExport(mesh, key, res.body.id);
      const file = await download(done.download_url);
      expect(file.text).toContain('"Won, finally"');
      expect(csvObjects(file.text)[0].stage).toBe('Won, finally');
    });

    it('a list_id naming no list: the export completes with no rows (header only); lists themselves: lists.e2e-spec.ts', async () => {
      const res = await createExport(mesh, key, { format: 'csv', filter: { list_id: 'list_unknown' } });
      const done = await waitForExport(mesh, key, res.body.id);
      expect(done.row_count).toBe(0);
      const file = await download(done.download_url);
      expect(parseCsv(file.text)).toEqual([EXPORT_COLUMNS]);
      const json = await createExport(mesh, key, { format: 'json', filter: { list_id: 'list_unknown' } });
      const jsonDone = await waitForExport(mesh, key, json.body.id);
      expect((await download(jsonDone.download_url)).body).toEqual([]);
    });
  });

  describe('bad input', () => {
    it.each([
      ['format missing', {}, 'format'],
      ['format unknown', { format: 'xml' }, 'format'],
      ['format of the wrong type', { format: 1 }, 'format'],
      ['format null', { format: null }, 'format'],
      ['an unknown field', { format: 'csv', limit: 10 }, 'limit'],
      ['filter a string', { format: 'csv', filter: 'lens=leads' }, 'filter'],
      ['filter an array', { format: 'csv', filter: [] }, 'filter'],
      ['filter null', { format: 'csv', filter: null }, 'filter'],
      ['filter.lens unknown', { format: 'csv', filter: { lens: 'aliens' } }, 'filter.lens'],
      ['filter.lens a number', { format: 'csv', filter: { lens: 5 } }, 'filter.lens'],
      ['filter.tag a number', { format: 'csv', filter: { tag: 5 } }, 'filter.tag'],
      ['filter.tag empty', { format: 'csv', filter: { tag: '' } }, 'filter.tag'],
      ['filter.tag too long', { format: 'csv', filter: { tag: 'x'.repeat(101) } }, 'filter.tag'],
      ['filter.pipeline_id an object', { format: 'csv', filter: { pipeline_id: {} } }, 'filter.pipeline_id'],
      ['filter.stage_id a number', { format: 'csv', filter: { stage_id: 7 } }, 'filter.stage_id'],
      ['filter.list_id a boolean', { format: 'csv', filter: { list_id: true } }, 'filter.list_id'],
      ['filter.list_id null', { format: 'csv', filter: { list_id: null } }, 'filter.list_id'],
      ['filter.updated_since not a date', { format: 'csv', filter: { updated_since: 'yesterday' } }, 'filter.updated_since'],
      ['filter.updated_since without a zone', { format: 'csv', filter: { updated_since: '2026-01-01T00:00:00' } }, 'filter.updated_since'],
      ['filter.updated_since 30 February', { format: 'csv', filter: { updated_since: '2026-02-30T00:00:00Z' } }, 'filter.updated_since'],
      ['filter.updated_since a number', { format: 'csv', filter: { updated_since: 1767225600 } }, 'filter.updated_since'],
      ['an unknown filter field', { format: 'csv', filter: { company_id: 'co_1' } }, 'filter.company_id'],
    ])('%s: 400 invalid_request naming the field', async (_name, body, param) => {
      const res = await mesh.request('POST', '/exports', { key: ws.bad.key, body });
      expectApiError(res, 400, 'invalid_request', param);
    });

    it('prototype keys, a non-object body and a non-JSON body are 400', async () => {
      const proto = await mesh.request('POST', '/exports', { key: ws.bad.key, rawBody: '{"format":"csv","filter":{"__proto__":{"x":1}}}', headers: { 'content-type': 'application/json' } });
      expectApiError(proto, 400, 'invalid_request', 'filter.__proto__');
      const array = await mesh.request('POST', '/exports', { key: ws.bad.key, rawBody: '[]', headers: { 'content-type': 'application/json' } });
      expectApiError(array, 400, 'invalid_request');
      const text = await mesh.request('POST', '/exports', { key: ws.bad.key, rawBody: 'format=csv', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expectApiError(text, 400, 'invalid_request');
    });

    it('a lens not on the plan is 403 with param filter.lens', async () => {
      const narrow = await mesh.workspace({ lenses: 'leads' });
      const res = await mesh.request('POST', '/exports', { key: narrow.key, body: { format: 'csv', filter: { lens: 'grants' } } });
      expectApiError(res, 403, 'permission_denied', 'filter.lens');
      await createExport(mesh, narrow.key, { format: 'csv', filter: { lens: 'leads' } });
    });

    it('without a key: 401 for POST and GET', async () => {
      expectApiError(await mesh.request('POST', '/exports', { body: { format: 'csv' } }), 401, 'authentication_failed');
      expectApiError(await mesh.request('GET', '/exports/exp_x'), 401, 'authentication_failed');
    });

    it('refused requests queued nothing and audited nothing', async () => {
      const jobs = await mesh.query('crm', 'SELECT count(*)::int AS n FROM exports WHERE workspace_id = $1', [ws.bad.workspace.id]);
      expect(jobs[0].n).toBe(0);
      const audit = await mesh.query('gateway', 'SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1', [ws.bad.workspace.id]);
      expect(audit[0].n).toBe(0);
    });

    it('GET of an unknown export, another workspace\'s export, or an over-long id: 404 with param id', async () => {
      expectApiError(await mesh.request('GET', '/exports/exp_doesnotexist', { key: ws.bad.key }), 404, 'not_found', 'id');
      const theirs = await createExport(mesh, ws.stranger.key, { format: 'csv' });
      expectApiError(await mesh.request('GET', `/exports/${theirs.body.id}`, { key: ws.bad.key }), 404, 'not_found', 'id');
      expectApiError(await mesh.request('GET', `/exports/exp_${'x'.repeat(300)}`, { key: ws.bad.key }), 404, 'not_found', 'id');
    });
  });

  describe('download links', () => {
    let key: string;
    let done: any;
    beforeAll(async () => {
      key = ws.links.key;
      await createLead(mesh, key, { full_name: 'Link Lead' });
      done = await waitForExport(mesh, key, (await createExport(mesh, key, { format: 'csv' })).body.id);
    });

    const linkWith = (mutate: (url: URL) => void): string => {
      const url = new URL(done.download_url);
      mutate(url);
      return url.toString();
    };

    const expectRefused = async (url: string) => {
      const res = await download(url);
      expectApiError({ ...res, body: res.body }, 404, 'not_found');
      expect(res.headers.get('content-disposition')).toBeNull();
    };

    it('a valid link works without an API key and carries Request-Id and rate limit headers (per client address)', async () => {
      const res = await download(done.download_url);
      expect(res.status).toBe(200);
      expectRequestId(res as any);
      expectRateLimitHeaders(res as any);
      // an Authorization header is ignored on this route, even an invalid one
      expect((await download(done.download_url, { authorization: 'Bearer svc_live_bogus' })).status).toBe(200);
    });

    it('an expired link, even correctly signed, is 404 with the error object', async () => {
      const past = Math.floor(Date.now() / 1000) - 60;
      await expectRefused(linkWith((u) => {
        u.searchParams.set('expires', String(past));
        u.searchParams.set('signature', sign(done.id, past));
      }));
    });

    it('an altered signature, expiry or id is 404', async () => {
      const signature = new URL(done.download_url).searchParams.get('signature') as string;
      const flipped = (signature[0] === '0' ? '1' : '0') + signature.slice(1);
      await expectRefused(linkWith((u) => u.searchParams.set('signature', flipped)));
      await expectRefused(linkWith((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))));
      await expectRefused(linkWith((u) => u.searchParams.delete('signature')));
      await expectRefused(linkWith((u) => u.searchParams.delete('expires')));
      await expectRefused(linkWith((u) => u.searchParams.set('signature', 'not-hex')));
      await expectRefused(linkWith((u) => { u.pathname = u.pathname.replace(done.id, `${done.id}x`); }));
    });

    it('a link signed with another secret, or for an export that is not completed or does not exist, is 404', async () => {
      const future = Math.floor(Date.now() / 1000) + 3600;
      const otherSecret = createHmac('sha256', 'another-secret').update(`${done.id}.${future}`).digest('hex');
      await expectRefused(`${base}/exports/${done.id}/download?expires=${future}&signature=${otherSecret}`);
      await expectRefused(`${base}/exports/exp_neverexisted/download?expires=${future}&signature=${sign('exp_neverexisted', future)}`);
      await mesh.query('crm', `INSERT INTO exports (id, workspace_id, livemode, format, status, locked_until) VALUES ('exp_notyet', $1, true, 'csv', 'queued', now() + interval '1 hour')`, [ws.links.workspace.id]);
      await expectRefused(`${base}/exports/exp_notyet/download?expires=${future}&signature=${sign('exp_notyet', future)}`);
    });

    it('downloads are recorded in the audit log without a key', async () => {
      const rows = await mesh.query('gateway', `SELECT * FROM audit_log WHERE action = 'export.downloaded' AND object_id = $1`, [done.id]);
      expect(rows.length).toBeGreaterThanOrEqual(1);
      expect(rows[0]).toMatchObject({ workspace_id: ws.links.workspace.id, key_id: null, details: { format: 'csv' } });
    });

    it('a job out of attempts whose worker vanished is marked failed and kept', async () => {
      await mesh.query(
        'crm',
        `INSERT INTO exports (id, workspace_id, livemode, format, status, attempts, locked_by, locked_until, started_at)
         VALUES ('exp_exhausted', $1, true, 'json', 'processing', 3, 'gone:1', now() - interval '1 minute', now() - interval '5 minutes')`,
        [ws.links.workspace.id],
      );
      const failed = await waitForExport(mesh, key, 'exp_exhausted');
      expect(failed).toMatchObject({ status: 'failed', row_count: null, download_url: null });
      const [row] = await mesh.query('crm', `SELECT status, attempts, error FROM exports WHERE id = 'exp_exhausted'`);
      expect(row).toMatchObject({ status: 'failed', attempts: 3, error: expect.stringMatching(/attempt 3/) });
      expectExport(failed);
    });
  });
});
