import { connect, NatsConnection } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { PG_SERVER_URL, TestMesh, testContext } from '../../../test/harness';
import { randomToken } from './ids';
import { DomainError } from './domain-error';
import { IdempotentCreate } from './idempotent-create';
import { NatsRpcServer } from './nats-rpc.server';
import { askService, ReplyTimeoutError } from './reply-mux';
import { RetryBudget } from './retry-budget';
import { NoAnswer, ServiceClient } from './service-client';
import { initTracing } from './tracing';
import { allowance } from '../../../test/support/timing';

const ATTEMPT_MS = 400;
const DEADLINE_MS = 5000;

interface Replica {
  name: string;
  server: NatsRpcServer;
  /** Requests this replica received, by request id. */
  received: string[];
}

/**
 * ServiceClient's per-attempt deadline and retry against a real nats-server and PostgreSQL: two
 * replicas serve the same subjects in one queue group; the one a request reaches first does the
 * work and dies before it answers (its connection closed, as a SIGKILL leaves it). The client
 * gets the answer from the other replica one attempt's deadline later, and a keyed create done by
 * both attempts leaves one row.
 */
describe('ServiceClient retry on another replica', () => {
  let mesh: TestMesh;
  let client: NatsConnection;
  let pool: Pool;
  const table = `retry_leads_${randomToken(8).toLowerCase()}`;
  const keys = new IdempotentCreate({ table: `${table}_keys`, column: 'lead_id', noun: 'lead' });
  const replicas: Replica[] = [];
  /** Request ids a replica dies on when it is the first to receive them (after doing the work). */
  const dieOnFirst = new Set<string>();
  /** Request ids the first replica to receive answers with internal_error, late; the next one answers later still. */
  const failLateOnFirst = new Set<string>();
  /** Request ids the first replica to receive answers with internal_error at once (a broken pooled connection). */
  const failOnFirst = new Set<string>();
  const firstSeen = new Set<string>();

  /** A replica of a crm-like service: a keyed create on PostgreSQL, a read, an unkeyed update. */
  async function startReplica(name: string, queue: string): Promise<Replica> {
    const server = new NatsRpcServer({ connection: mesh.probeOptions(), queue });
    const replica: Replica = { name, server, received: [] };
    // answers only after the work is done; dies instead when it is the first to receive a marked request
    const dieOrAnswer = async <T>(ctx: RequestContext, work: () => Promise<T>): Promise<T> => {
      replica.received.push(ctx.request_id);
      const first = !firstSeen.has(ctx.request_id);
      firstSeen.add(ctx.request_id);
      if (first && failOnFirst.has(ctx.request_id)) throw new DomainError('internal_error', 'Connection terminated unexpectedly');
      if (failLateOnFirst.has(ctx.request_id)) {
        // the first fails just after its attempt's deadline; the second answers 300 ms after it came, so the failure comes first
        await new Promise((r) => setTimeout(r, first ? ATTEMPT_MS + 100 : 300));
        if (first) throw new DomainError('internal_error', 'the claim was taken over');
      }
      const outcome = await work();
      if (first && dieOnFirst.has(ctx.request_id)) {
        await server.close();
        return new Promise<T>(() => undefined);
      }
      return outcome;
    };
    server.addHandler(SUBJECTS.crm.leadsCreate, async ({ ctx, body }: { ctx: RequestContext; body: { email: string } }) =>
      dieOrAnswer(ctx, async () => {
        const db = await pool.connect();
        try {
          await db.query('BEGIN');
          const id = `lead_${randomToken(12)}`;
          const lead = await keys.run(
            db, ctx, id,
            async () => (await db.query(`INSERT INTO ${table} (id, workspace_id, email) VALUES ($1, $2, $3) RETURNING id, email`, [id, ctx.workspace_id, body.email])).rows[0],
            async (earlier) => (await db.query(`SELECT id, email FROM ${table} WHERE id = $1`, [earlier])).rows[0],
          );
          await db.query('COMMIT');
          return { ...lead, answered_by: name };
        } catch (err) {
          await db.query('ROLLBACK');
          throw err;
        } finally {
          db.release();
        }
      }), false);
    server.addHandler(SUBJECTS.crm.leadsGet, async ({ ctx }: { ctx: RequestContext }) => dieOrAnswer(ctx, async () => ({ answered_by: name })), false);
    server.addHandler(SUBJECTS.crm.leadsUpdate, async ({ ctx }: { ctx: RequestContext }) => dieOrAnswer(ctx, async () => ({ answered_by: name })), false);
    await new Promise<void>((resolve, reject) => server.listen((err?: unknown) => (err ? reject(err) : resolve())));
    replicas.push(replica);
    return replica;
  }

  beforeAll(async () => {
    // the context manager a service's bootstrap registers: a handler's scope (its deadline) follows its awaits
    initTracing('service-client-spec', {});
    mesh = await TestMesh.start([]);
    client = await connect(mesh.probeOptions());
    pool = new Pool({ connectionString: PG_SERVER_URL, max: 4 });
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, workspace_id text NOT NULL, email text NOT NULL)`);
    await pool.query(
      `CREATE TABLE ${table}_keys (workspace_id text, key text, request_hash text NOT NULL, lead_id text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (workspace_id, key))`,
    );
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.server.close().catch(() => undefined)));
    await pool?.query(`DROP TABLE IF EXISTS ${table}, ${table}_keys`);
    await pool?.end();
    await client?.close();
    await mesh?.close();
  });

  /** Two fresh replicas in a queue group of their own; the test's requests reach only them. */
  async function twoReplicas(): Promise<[Replica, Replica]> {
    const queue = `crm-${randomToken(6)}`;
    for (const r of replicas.splice(0)) await r.server.close().catch(() => undefined);
    return [await startReplica('a', queue), await startReplica('b', queue)];
  }

  const timed = async <T>(ask: () => Promise<T>): Promise<{ value: T; ms: number }> => {
    const started = performance.now();
    const value = await ask();
    return { value, ms: performance.now() - started };
  };

  it('answers a read from the other replica one attempt deadline after the first one died holding it', async () => {
    const [a, b] = await twoReplicas();
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    const ctx = testContext();
    dieOnFirst.add(ctx.request_id);
    const { value, ms } = await timed(() => rpc.ask<{ answered_by: string }>(SUBJECTS.crm.leadsGet, ctx, { id: 'lead_x' }));
    expect([a.name, b.name]).toContain(value.answered_by);
    // the dead replica received it once and never answered; the answer came from the other
    const survivor = value.answered_by === 'a' ? a : b;
    const dead = survivor === a ? b : a;
    expect(dead.received).toEqual([ctx.request_id]);
    expect(survivor.received).toEqual([ctx.request_id]);
    expect(ms).toBeGreaterThanOrEqual(ATTEMPT_MS - 5);
    expect(ms).toBeLessThan(ATTEMPT_MS + allowance(600));
  });

  it('retries a keyed create on the other replica and stores one row, answered with the first attempt\'s lead', async () => {
    const [a, b] = await twoReplicas();
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    const email = `retry-${randomToken(6)}@example.com`;
    const ctx = testContext({ idempotency: { key: `live:${randomToken(16)}`, request_hash: 'h1' } });
    dieOnFirst.add(ctx.request_id);
    const { value, ms } = await timed(() => rpc.ask<{ id: string; email: string; answered_by: string }>(SUBJECTS.crm.leadsCreate, ctx, { email }));
    expect(ms).toBeLessThan(ATTEMPT_MS + allowance(600));
    const survivor = value.answered_by === 'a' ? a : b;
    const dead = survivor === a ? b : a;
    // both replicas did the create; the dead one committed its lead and never answered
    expect(dead.received).toEqual([ctx.request_id]);
    expect(survivor.received).toEqual([ctx.request_id]);
    const rows = (await pool.query(`SELECT id FROM ${table} WHERE email = $1`, [email])).rows;
    expect(rows).toEqual([{ id: value.id }]);
  });

  it('never retries a create without a key or an update: the first replica dying costs the whole deadline', async () => {
    const rpc = new ServiceClient(client, { rpcTimeoutMs: 1500, rpcAttemptTimeoutMs: ATTEMPT_MS });
    for (const [subject, body] of [[SUBJECTS.crm.leadsCreate, { email: `once-${randomToken(6)}@example.com` }], [SUBJECTS.crm.leadsUpdate, { id: 'lead_x' }]] as const) {
      const [a, b] = await twoReplicas();
      const ctx = testContext();
      dieOnFirst.add(ctx.request_id);
      const started = performance.now();
      await expect(rpc.ask(subject, ctx, body)).rejects.toBeInstanceOf(NoAnswer);
      expect(performance.now() - started).toBeGreaterThanOrEqual(1495);
      expect([...a.received, ...b.received]).toEqual([ctx.request_id]);
    }
    const unkeyed = (await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE email LIKE 'once-%'`)).rows[0].n;
    expect(unkeyed).toBe(1);
  });

  it("takes the other attempt's answer over an internal_error that comes first", async () => {
    const [a, b] = await twoReplicas();
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    const ctx = testContext();
    failLateOnFirst.add(ctx.request_id);
    const { value, ms } = await timed(() => rpc.ask<{ answered_by: string }>(SUBJECTS.crm.leadsGet, ctx, { id: 'lead_z' }));
    expect([a.name, b.name]).toContain(value.answered_by);
    expect([...a.received, ...b.received]).toEqual([ctx.request_id, ctx.request_id]);
    expect(ms).toBeGreaterThanOrEqual(ATTEMPT_MS + 295);
    expect(ms).toBeLessThan(ATTEMPT_MS + allowance(900));
  });

  it('asks again, after a pause, a retryable request answered with internal_error; any other request gets the error', async () => {
    const [a, b] = await twoReplicas();
    // an attempt deadline well beyond the pause, so that a second ask after the pause (100 ms,
    // FAILED_ATTEMPT_PAUSE_MS) is told apart from one after the attempt's deadline also when the
    // harness scales the allowance (TEST_TIMING_SCALE); at the default scale the bound is 400 ms as before
    const slowAttemptMs = 4000;
    const bound = 100 + allowance(300);
    expect(bound).toBeLessThan(slowAttemptMs);
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: slowAttemptMs });
    const ctx = testContext();
    failOnFirst.add(ctx.request_id);
    const { value, ms } = await timed(() => rpc.ask<{ answered_by: string }>(SUBJECTS.crm.leadsGet, ctx, { id: 'lead_w' }));
    expect([a.name, b.name]).toContain(value.answered_by);
    expect([...a.received, ...b.received]).toEqual([ctx.request_id, ctx.request_id]);
    expect(ms).toBeLessThan(bound);
    const update = testContext();
    failOnFirst.add(update.request_id);
    await expect(rpc.ask(SUBJECTS.crm.leadsUpdate, update, { id: 'lead_w' })).rejects.toMatchObject({ code: 'internal_error' });
    expect([...a.received, ...b.received].filter((id) => id === update.request_id)).toHaveLength(1);
  });

  it('asks a replica that answers in time once', async () => {
    const [a, b] = await twoReplicas();
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    const ctx = testContext();
    const { value } = await timed(() => rpc.ask<{ answered_by: string }>(SUBJECTS.crm.leadsGet, ctx, { id: 'lead_y' }));
    expect([a.name, b.name]).toContain(value.answered_by);
    expect([...a.received, ...b.received]).toEqual([ctx.request_id]);
  });
  it('asks a subject nobody serves again for about 1.5 s: replicas rejoining within it answer, a stopped service fails after it', async () => {
    // a read no replica of the other tests serves
    const subject = SUBJECTS.crm.companiesGet;
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    const stopped = await timed(() => rpc.ask(subject, testContext(), { id: 'company_v' }).catch((err: unknown) => err));
    expect(stopped.value).toBeInstanceOf(NoAnswer);
    expect(stopped.ms).toBeGreaterThanOrEqual(1450);
    // the spec's fast 500 for a stopped service: within 2 s (test/e2e/operations/stopped-service)
    expect(stopped.ms).toBeLessThan(1500 + allowance(500));
    // every replica out of the group (a database failing over), one back 1.2 s later
    const late = new NatsRpcServer({ connection: mesh.probeOptions(), queue: `crm-${randomToken(6)}` });
    late.addHandler(subject, async () => ({ answered_by: 'late' }), false);
    // connected beforehand and out of the group, so that at 1.2 s rejoining is only its SUB (a
    // connection made then took longer than the window's last 300 ms on a loaded machine)
    await late.listen((err) => {
      if (err) throw err;
    });
    await late.leave();
    const rejoined = setTimeout(() => void late.join(), 1200);
    try {
      const { value, ms } = await timed(() => rpc.ask<{ answered_by: string }>(subject, testContext(), { id: 'company_v' }));
      expect(value.answered_by).toBe('late');
      expect(ms).toBeGreaterThanOrEqual(1200);
      expect(ms).toBeLessThan(1200 + allowance(700));
    } finally {
      clearTimeout(rejoined);
      await late.close().catch(() => undefined);
    }
  });

  it('keeps the whole grace on a busy event loop: a timer run 300 ms late does not skip the last ask', async () => {
    // a read nobody in this file serves, not even the test before's late replica: its close may not
    // have ended its subscription on a loaded machine, and a subscriber that does not answer holds
    // the ask to its deadline (a fresh-clone run once took 5,002 ms on companiesGet)
    const subject = SUBJECTS.crm.companiesList;
    const rpc = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    // the loop held from 1.0 to 1.3 s after the first ask, so the ask due at 1.1 s runs at 1.3 s: paused
    // from there, the next (1.7 s) fell past the grace and the client gave up at 1.3 s (as CI's
    // loaded Node 20 line once saw: 1,387 ms)
    const busy = setTimeout(() => {
      const from = performance.now();
      while (performance.now() - from < 300);
    }, 1000);
    try {
      const stopped = await timed(() => rpc.ask(subject, testContext(), { id: 'company_b' }).catch((err: unknown) => err));
      expect(stopped.value).toBeInstanceOf(NoAnswer);
      expect(stopped.ms).toBeGreaterThanOrEqual(1450);
      expect(stopped.ms).toBeLessThan(1500 + allowance(500));
    } finally {
      clearTimeout(busy);
    }
  });

  it('sends no retry once its retry budget is spent: the dead replica costs the whole deadline', async () => {
    const [a, b] = await twoReplicas();
    const rpc = new ServiceClient(client, { rpcTimeoutMs: 1500, rpcAttemptTimeoutMs: ATTEMPT_MS });
    // spent, and earning nothing back meanwhile
    rpc.budget = new RetryBudget(0.2, 0, 1);
    rpc.budget.withdraw();
    const ctx = testContext();
    dieOnFirst.add(ctx.request_id);
    const { value, ms } = await timed(() => rpc.ask(SUBJECTS.crm.leadsGet, ctx, { id: 'lead_b' }).catch((err: unknown) => err));
    expect(value).toBeInstanceOf(NoAnswer);
    expect(ms).toBeGreaterThanOrEqual(1495);
    expect([...a.received, ...b.received]).toEqual([ctx.request_id]);
    // a client with its budget sends the retry
    await twoReplicas();
    const fresh = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS, rpcAttemptTimeoutMs: ATTEMPT_MS });
    const again = testContext();
    dieOnFirst.add(again.request_id);
    const answered = await timed(() => fresh.ask<{ answered_by: string }>(SUBJECTS.crm.leadsGet, again, { id: 'lead_b' }));
    expect(answered.ms).toBeLessThan(ATTEMPT_MS + allowance(600));
  });

  it('drops a read that reaches the replica after its requester stopped waiting, unhandled; a write is still done', async () => {
    const [a, b] = await twoReplicas();
    const ctx = testContext();
    const late = askService(client, SUBJECTS.crm.leadsGet, { ctx, body: { id: 'lead_d' } }, 300, { deadline: Date.now() - 1 });
    await expect(late).rejects.toBeInstanceOf(ReplyTimeoutError);
    expect([...a.received, ...b.received]).toEqual([]);
    // a write its requester gave up on is done all the same (its retry is answered from what it recorded)
    const write = testContext();
    const lateWrite = await askService<{ answered_by: string }>(client, SUBJECTS.crm.leadsUpdate, { ctx: write, body: { id: 'lead_d' } }, 2000, { deadline: Date.now() - 1 });
    expect([a.name, b.name]).toContain(lateWrite.response?.answered_by);
    expect([...a.received, ...b.received]).toEqual([write.request_id]);
    // in time, the same request is handled
    const onTime = await askService<{ answered_by: string }>(client, SUBJECTS.crm.leadsGet, { ctx, body: { id: 'lead_d' } }, 2000, { deadline: Date.now() + 2000 });
    expect([a.name, b.name]).toContain(onTime.response?.answered_by);
    expect([...a.received, ...b.received].sort()).toEqual([write.request_id, ctx.request_id].sort());
  });

  it("ends a handler's own requests by its caller's deadline, and sends none once it has passed", async () => {
    const [a] = await twoReplicas();
    const queue = `relay-${randomToken(6)}`;
    const relay = new NatsRpcServer({ connection: mesh.probeOptions(), queue });
    // a service asking a peer that never answers (the request's own deadline 5 s) while handling a request
    const peers = new ServiceClient(client, { rpcTimeoutMs: DEADLINE_MS });
    relay.addHandler(SUBJECTS.crm.leadsDelete, () => new Promise(() => undefined), false);
    relay.addHandler(SUBJECTS.crm.leadsList, async ({ ctx, body }: { ctx: RequestContext; body: { waitMs: number } }) => {
      await new Promise((r) => setTimeout(r, body.waitMs));
      const started = performance.now();
      const outcome = await peers.ask(SUBJECTS.crm.leadsDelete, ctx, {}).then(() => 'answered', (err: Error) => err.message);
      return { outcome, ms: performance.now() - started };
    }, false);
    await new Promise<void>((resolve, reject) => relay.listen((err?: unknown) => (err ? reject(err) : resolve())));
    try {
      // the caller's 600 ms end the handler's wait for its peer, not the peer request's own 5 s
      const inTime = askService<{ outcome: string; ms: number }>(client, SUBJECTS.crm.leadsList, { ctx: testContext(), body: { waitMs: 0 } }, 3000, { deadline: Date.now() + 600 });
      const first = (await inTime).response;
      expect(first?.outcome).toMatch(/no reply/);
      expect(first?.ms).toBeGreaterThan(450);
      expect(first?.ms).toBeLessThan(600 + allowance(200));
      // the handler still at work when its caller's deadline passes sends nothing more
      const after = (await askService<{ outcome: string; ms: number }>(client, SUBJECTS.crm.leadsList, { ctx: testContext(), body: { waitMs: 400 } }, 3000, { deadline: Date.now() + 300 })).response;
      expect(after?.outcome).toMatch(/caller of this work stopped waiting/);
      expect(after?.ms).toBeLessThan(allowance(50));
      expect(a.received).toEqual([]);
    } finally {
      await relay.close().catch(() => undefined);
    }
  });
});
