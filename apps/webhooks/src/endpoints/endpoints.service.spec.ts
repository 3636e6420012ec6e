import { randomBytes } from 'node:crypto';
import { NatsConnection } from '@nats-io/transport-node';
import { RequestContext } from '@app/contracts';
import { EarlierCreate, IdempotentCreate, Tx, UnitOfWork } from '@app/platform';
import { ENDPOINT_DELETED_SUBJECT } from '../dispatch/dispatcher';
import { OutcomesRepository } from '../dispatch/outcomes.repository';
import { decryptSecret } from '../secrets';
import { WebhooksConfig } from '../webhooks-config';
import { EndpointChanges, EndpointRow, EndpointsRepository } from './endpoints.repository';
import { EndpointsService } from './endpoints.service';

/**
 * EndpointsService with EndpointsRepository replaced by an in-memory store (its Idempotency-Key
 * claims included), OutcomesRepository by a recorder of the endpoints whose pending retries were
 * dropped, and the NATS connection by a recorder of publishes. What the service decides, no
 * database; the real statements run in webhooks-manage.e2e-spec.ts and webhooks.e2e-spec.ts.
 */
const ctx = { workspace_id: 'ws_1', livemode: true, api_version: '2026-09-28', request_id: 'req_1' } as RequestContext;
const other = { ...ctx, workspace_id: 'ws_2' } as RequestContext;

/** IdempotentCreate's rules (run) over claims kept in memory instead of webhook_create_keys. */
class InMemoryCreateKeys extends IdempotentCreate {
  private readonly claims = new Map<string, EarlierCreate>();
  constructor() {
    super({ table: 'webhook_create_keys', column: 'endpoint_id' });
  }
  override async claim(_db: unknown, workspaceId: string, key: string, requestHash: string, id: string): Promise<EarlierCreate | null> {
    const earlier = this.claims.get(`${workspaceId}/${key}`);
    if (earlier) return earlier;
    this.claims.set(`${workspaceId}/${key}`, { id, request_hash: requestHash });
    return null;
  }
}

/** KeyedChange's rules (run) over keys and answers kept in memory instead of webhook_roll_keys. */
class InMemoryChangeKeys<T> {
  readonly answers = new Map<string, { id: string; request_hash: string; answer: T }>();
  async run(_db: unknown, ctx: RequestContext, id: string, change: () => Promise<T>, exists: (id: string) => Promise<boolean>): Promise<T> {
    if (!ctx.idempotency) return change();
    const slot = `${ctx.workspace_id}/${ctx.idempotency.key}`;
    const earlier = this.answers.get(slot);
    if (!earlier) {
      const answer = await change();
      this.answers.set(slot, { id, request_hash: ctx.idempotency.request_hash, answer });
      return answer;
    }
    if (earlier.request_hash !== ctx.idempotency.request_hash) throw Object.assign(new Error('conflict'), { code: 'conflict', param: 'Idempotency-Key' });
    if (!(await exists(earlier.id))) throw Object.assign(new Error('conflict'), { code: 'conflict', param: 'Idempotency-Key' });
    return earlier.answer;
  }
}

class InMemoryEndpoints {
  readonly createKeys = new InMemoryCreateKeys();
  readonly rollKeys = new InMemoryChangeKeys();
  readonly rows = new Map<string, EndpointRow & { previous_secret_enc?: string }>();

  async insert(_db: unknown, row: Omit<EndpointRow, 'status' | 'consecutive_failures' | 'created_at'>): Promise<EndpointRow> {
    const stored = { ...row, status: 'enabled' as const, consecutive_failures: 0, created_at: new Date('2026-11-27T06:00:00Z') };
    this.rows.set(row.id, stored);
    return { ...stored };
  }
  async countForCreate(_tx: unknown, workspaceId: string): Promise<number> {
    return [...this.rows.values()].filter((r) => r.workspace_id === workspaceId).length;
  }
  async findById(workspaceId: string | null, id: string): Promise<EndpointRow | undefined> {
    const row = this.rows.get(id);
    return row && (workspaceId === null || row.workspace_id === workspaceId) ? { ...row } : undefined;
  }
  async update(_db: unknown, workspaceId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | undefined> {
    const row = await this.findById(workspaceId, id);
    if (!row) return undefined;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    this.rows.set(id, { ...row, ...defined });
    return { ...this.rows.get(id)! };
  }
  async rollSecret(_db: unknown, workspaceId: string, id: string, secretEnc: string, graceMs: number) {
    const row = await this.findById(workspaceId, id);
    if (!row) return undefined;
    this.rows.set(id, { ...row, previous_secret_enc: row.secret_enc, secret_enc: secretEnc });
    return { ...this.rows.get(id)!, previous_secret_expires_at: new Date(Date.now() + graceMs) };
  }
  async list(workspaceId: string): Promise<EndpointRow[]> {
    return [...this.rows.values()].filter((r) => r.workspace_id === workspaceId).reverse();
  }
  async delete(workspaceId: string, id: string): Promise<boolean> {
    return (await this.findById(workspaceId, id)) !== undefined && this.rows.delete(id);
  }
}

function setup() {
  const config = {
    secretKey: randomBytes(32), allowedHosts: new Set<string>(), dnsServers: [], concurrency: 8, endpointConcurrency: 2,
    testClock: false, secretRollGraceMs: 24 * 3_600_000, timeoutMs: 10_000, eventsRetentionDays: 30,
  } satisfies WebhooksConfig;
  const endpoints = new InMemoryEndpoints();
  const dropped: { tx: unknown; ids: string[] }[] = [];
  const outcomes = { dropPendingOf: async (tx: unknown, ids: string[]) => void dropped.push({ tx, ids }) };
  const published: { subject: string; data: unknown }[] = [];
  const nc = { publish: (subject: string, data: unknown) => void published.push({ subject, data }) };
  const tx = { query: jest.fn() } as unknown as Tx;
  const uow = { run: jest.fn((work: (tx: Tx) => Promise<unknown>) => work(tx)) } as unknown as UnitOfWork;
  const service = new EndpointsService(
    endpoints as unknown as EndpointsRepository, outcomes as unknown as OutcomesRepository, config, nc as unknown as NatsConnection, uow,
  );
  return { service, endpoints, dropped, published, tx, config };
}

const body = { url: 'https://hooks.example.com/in', events: ['lead.created', 'lead.created', 'lead.updated'] };

describe('EndpointsService (in-memory repositories)', () => {
  it('POST: the answer carries a whsec_ secret that is stored only encrypted; events once each; pinned at the request\'s API version', async () => {
    const { service, endpoints, config } = setup();
    const created = await service.create(ctx, { ...body, description: 'CRM sync' });
    expect(created).toMatchObject({
      object: 'webhook_endpoint', url: body.url, description: 'CRM sync', events: ['lead.created', 'lead.updated'], status: 'enabled',
    });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_/);
    const stored = endpoints.rows.get(created.id)!;
    expect(stored.secret_enc).not.toContain(created.secret);
    expect(decryptSecret(stored.secret_enc, config.secretKey)).toBe(created.secret);
    expect(stored.api_version).toBe('2026-09-28');
  });

  it.each(['https://127.0.0.1/in', 'https://10.1.2.3/in', 'https://[::1]/in', 'https://169.254.169.254/latest'])(
    'POST with a url at a private, loopback or link-local address (%s) is invalid_request naming url, and stores nothing',
    async (url) => {
      const { service, endpoints } = setup();
      await expect(service.create(ctx, { ...body, url })).rejects.toMatchObject({ code: 'invalid_request', param: 'url' });
      expect(endpoints.rows.size).toBe(0);
    },
  );

  it('a workspace has at most 16 endpoints: the 17th is invalid_request and stores nothing; another workspace is counted apart', async () => {
    const { service, endpoints } = setup();
    for (let i = 0; i < 16; i++) await service.create(ctx, body);
    await expect(service.create(ctx, body)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('at most 16') });
    expect(endpoints.rows.size).toBe(16);
    await expect(service.create(other, body)).resolves.toMatchObject({ object: 'webhook_endpoint' });
    const [first] = await service.list(ctx, { limit: 1 } as never).then((page) => page.data);
    await service.delete(ctx, first.id);
    await expect(service.create(ctx, body)).resolves.toMatchObject({ object: 'webhook_endpoint' });
  });

  it('a retry of a create with the same Idempotency-Key answers the same endpoint and secret; the key with another body is a conflict', async () => {
    const { service, endpoints } = setup();
    const keyed = (hash: string) => ({ ...ctx, idempotency: { key: 'idem_1', request_hash: hash } }) as RequestContext;
    const first = await service.create(keyed('h1'), body);
    await expect(service.create(keyed('h1'), body)).resolves.toEqual(first);
    await expect(service.create(keyed('h2'), { ...body, url: 'https://other.example.com/in' })).rejects.toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
    expect(endpoints.rows.size).toBe(1);
  });

  it('GET and list never return the secret; an endpoint of another workspace is not_found naming id', async () => {
    const { service } = setup();
    const created = await service.create(ctx, body);
    const got = await service.get(ctx, created.id);
    expect(got).not.toHaveProperty('secret');
    const page = await service.list(ctx, { limit: 10 } as never);
    expect(page.data.map((e) => e.id)).toEqual([created.id]);
    expect(page.data[0]).not.toHaveProperty('secret');
    await expect(service.get(other, created.id)).rejects.toMatchObject({ code: 'not_found', param: 'id' });
  });

  it('PATCH to disabled drops the endpoint\'s pending retries in the same unit of work; back to enabled drops nothing', async () => {
    const { service, dropped, tx } = setup();
    const created = await service.create(ctx, body);
    await expect(service.update(ctx, { id: created.id, status: 'disabled' } as never)).resolves.toMatchObject({ status: 'disabled', url: body.url });
    expect(dropped).toEqual([{ tx, ids: [created.id] }]);
    await expect(service.update(ctx, { id: created.id, status: 'enabled' } as never)).resolves.toMatchObject({ status: 'enabled' });
    expect(dropped).toHaveLength(1);
  });

  it('PATCH of an unknown endpoint is not_found naming id; a private url is refused before anything is written', async () => {
    const { service, endpoints, dropped } = setup();
    await expect(service.update(ctx, { id: 'we_missing', status: 'disabled' } as never)).rejects.toMatchObject({ code: 'not_found', param: 'id' });
    const created = await service.create(ctx, body);
    await expect(service.update(ctx, { id: created.id, url: 'https://192.168.0.10/in' } as never)).rejects.toMatchObject({ code: 'invalid_request', param: 'url' });
    expect(endpoints.rows.get(created.id)!.url).toBe(body.url);
    expect(dropped).toEqual([]);
  });

  it('DELETE answers the deletion envelope and tells every replica to abort attempts in flight; an unknown id is not_found and tells nobody', async () => {
    const { service, published } = setup();
    const created = await service.create(ctx, body);
    await expect(service.delete(other, created.id)).rejects.toMatchObject({ code: 'not_found', param: 'id' });
    expect(published).toEqual([]);
    await expect(service.delete(ctx, created.id)).resolves.toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
    expect(published).toEqual([{ subject: ENDPOINT_DELETED_SUBJECT, data: created.id }]);
    await expect(service.get(ctx, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rolling the secret answers a new one, stored encrypted, the old one signing beside it for the grace period', async () => {
    const { service, endpoints, config } = setup();
    const created = await service.create(ctx, body);
    const before = Date.now();
    const rolled = await service.rollSecret(ctx, created.id);
    expect(rolled.secret).toMatch(/^whsec_/);
    expect(rolled.secret).not.toBe(created.secret);
    expect(decryptSecret(endpoints.rows.get(created.id)!.secret_enc, config.secretKey)).toBe(rolled.secret);
    expect(Date.parse(rolled.previous_secret_expires_at) - before).toBeGreaterThanOrEqual(config.secretRollGraceMs);
    await expect(service.rollSecret(other, created.id)).rejects.toMatchObject({ code: 'not_found', param: 'id' });
  });

  it('a roll asked again with its Idempotency-Key answers the first roll\'s secret and rolls nothing more', async () => {
    const { service, endpoints, config } = setup();
    const created = await service.create(ctx, body);
    const keyed = { ...ctx, idempotency: { key: 'roll-1', request_hash: 'h1' } } as RequestContext;
    const first = await service.rollSecret(keyed, created.id);
    const stored = endpoints.rows.get(created.id)!;
    await expect(service.rollSecret(keyed, created.id)).resolves.toEqual(first);
    expect(endpoints.rows.get(created.id)).toEqual(stored);
    expect(decryptSecret(stored.previous_secret_enc!, config.secretKey)).toBe(created.secret);
  });
});
