import { SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '@app/contracts/error-codes';
import { randomToken } from '@app/platform/ids';
import { retryingFetch } from '../../../packages/client/src/retry';
import { httpReady, RunningApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { TcpProxy } from '../../../tools/mesh/tcp-proxy';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { startBehindDatabaseProxy } from '../../support/proxied-database';
import { expectApiError, expectRateLimitHeaders, sleep } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Issue 35: a request made while a service's database does not answer (the primary stopped, its
 * standby not yet promoted) is answered 503 `service_unavailable` with `Retry-After`, the spec's
 * error object, not 500; nothing is recorded, and packages/client, which honours Retry-After,
 * rides the outage out: its caller gets the answer, not an error. crm's only replica reaches
 * its PostgreSQL (the real server) through a proxy the test cuts (live connections destroyed,
 * new ones refused), as a failover cuts them: it leaves its queue groups, so the gateway finds
 * no replica to take the request.
 */
describe('a request during a database outage (e2e)', () => {
  let mesh: TestMesh;
  let key: string;
  let proxy: TcpProxy;
  let crm: RunningApp | undefined;
  let crmLog: string[] = [];

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm']);
    ({ key } = await mesh.workspace());
    // crm's one replica from here on is one whose database connections go through the proxy
    await mesh.stopApp('crm');
    let log: string[];
    ({ proxy, app: crm, log } = await startBehindDatabaseProxy(mesh, 'crm'));
    crmLog = log;
  }, meshHookTimeoutMs(3)); // two apps, then crm again behind the proxy
  afterAll(async () => {
    if (crm) await stopApp(crm, 3000);
    await proxy?.close();
    await mesh?.close();
  });

  async function databaseCut(): Promise<void> {
    proxy.cut();
    await waitFor('crm to report its database down', async () => (await fetch(`http://127.0.0.1:${crm!.port}/health/ready`)).status === 503, 5000, 20).catch((err: Error) => {
      throw new Error(`${err.message}; its log:\n${crmLog.slice(-20).join('\n')}`);
    });
  }

  async function databaseBack(): Promise<void> {
    proxy.restore();
    await waitFor('crm ready again', () => httpReady(crm!.port), allowance(15_000));
  }

  it('answers 503 service_unavailable with Retry-After (the error object, no internals) and records nothing; the same Idempotency-Key is answered once the database is back', async () => {
    const before = await mesh.request('POST', '/leads', { key, body: { full_name: 'Before The Cut' } });
    expect(before.status).toBe(201);
    await databaseCut();

    const idempotencyKey = `db-outage-${randomToken(12)}`;
    const body = { full_name: `During The Cut ${randomToken(6)}` };
    const answers = [
      await mesh.request('GET', `/leads/${before.body.id}`, { key }),
      await mesh.request('GET', '/leads', { key }),
      await mesh.request('POST', '/leads', { key, body, headers: { 'idempotency-key': idempotencyKey } }),
      await mesh.request('PATCH', `/leads/${before.body.id}`, { key, body: { title: 'Changed During The Cut' } }),
    ];
    for (const res of answers) {
      expectApiError(res, 503, 'service_unavailable');
      expect(res.body.error.type).toBe('api_error');
      expect(res.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
      expect(res.body.error.message).not.toMatch(/\bcrm\b|nats|responder|ECONN|postgres|\bpg\b|stack|\.[jt]s\b/i);
      expectRateLimitHeaders(res);
    }

    await databaseBack();
    // the 503 recorded no answer under the key: the same POST now runs, once
    const retried = await mesh.request('POST', '/leads', { key, body, headers: { 'idempotency-key': idempotencyKey } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const read = await mesh.request('GET', `/leads/${before.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.title).toBeNull();
  });

  it("packages/client's default retries ride an outage out: its caller gets the answer, not the 503", async () => {
    await databaseCut();
    const sent: number[] = [];
    const client = retryingFetch({ fetch: async (request) => {
      const response = await fetch(request);
      sent.push(response.status);
      return response;
    } });
    const started = Date.now();
    const name = `Rode It Out ${randomToken(6)}`;
    const call = client(new Request(`${mesh.baseUrl}/leads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ full_name: name }),
    }));
    // the database back while the client waits the Retry-After of its first answer
    await sleep(2000);
    await databaseBack();
    const response = await call;
    expect({ status: response.status, sent: sent[0] }).toEqual({ status: 201, sent: 503 });
    expect(sent.at(-1)).toBe(201);
    // it waited what Retry-After asked before it asked again
    expect(Date.now() - started).toBeGreaterThanOrEqual(SERVICE_UNAVAILABLE_RETRY_AFTER_S * 1000);
    const lead = (await response.json()) as { id: string; full_name: string };
    expect(lead.full_name).toBe(name);
    const listed = await mesh.request('GET', `/leads?q=${encodeURIComponent(name)}`, { key });
    expect(listed.body.data.map((l: { id: string }) => l.id)).toEqual([lead.id]);
  });
});
