import { AckPolicy, jetstream, jetstreamManager, JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { connect, nanos, NatsConnection, PermissionViolationError } from '@nats-io/transport-node';
import { type NatsIdentity, natsInboxPrefix } from '@app/contracts/nats-flows';
import { SUBJECTS } from '@app/contracts/subjects';
import { connectMesh } from '@app/platform/nats';
import { askService } from '@app/platform/reply-mux';
import { freePort, httpReady, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { HARNESS, meshHookTimeoutMs, testContext, TestMesh } from '../../harness';
import { allowance } from '../../support/timing';

/**
 * The bus trusts nobody by default: nats-server runs with the mesh's generated configuration
 * (as `npm start` does), every connection has an NKEY identity, and each identity may publish
 * and subscribe only the flows of libs/contracts/src/nats-flows.ts. These are refusals by the
 * server, before any handler sees the message.
 */
describe('NATS identities and subject permissions', () => {
  let mesh: TestMesh;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm', 'billing']);
  }, meshHookTimeoutMs(3));
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
    await mesh?.close();
  });

  async function as(identity: NatsIdentity): Promise<{ nc: NatsConnection; errors: string[] }> {
    // connectMesh: the reply multiplexer reads replies under the identity's own inbox prefix
    const nc = await connectMesh(mesh.identityOptions(identity));
    connections.push(nc);
    const errors: string[] = [];
    void (async () => {
      for await (const status of nc.status()) if (status.type === 'error') errors.push(String(status.error?.message ?? status.error));
    })();
    return { nc, errors };
  }

  /** A workspace with a lead in it, made through the public API. */
  async function workspaceWithLead() {
    const { workspace, key } = await mesh.workspace();
    const lead = await mesh.request('POST', '/leads', { key, body: { full_name: 'Ada Lovelace', email: `ada-${workspace.id.toLowerCase()}@example.com` } });
    expect(lead.status).toBe(201);
    return { workspaceId: workspace.id as string, leadId: lead.body.id as string };
  }

  it('refuses an anonymous connection', async () => {
    await expect(connect({ servers: mesh.natsUrl, reconnect: false })).rejects.toThrow(/authoriz|authentication/i);
  });

  it('refuses a connection with a key the server does not know', async () => {
    const { nkeyAuthenticator, nkeys } = await import('@nats-io/transport-node');
    await expect(connect({ servers: mesh.natsUrl, reconnect: false, authenticator: nkeyAuthenticator(nkeys.createUser().getSeed()) })).rejects.toThrow(/authoriz|authentication/i);
  });

  it("crm's identity cannot publish to billing.> nor subscribe to search.>", async () => {
    const { nc, errors } = await as('crm');
    await expect(askService(nc, SUBJECTS.billing.creditsGrant, { ctx: testContext(), body: { pool: 'pack', amount: 1000 } }, 2000)).rejects.toThrow(/permission/i);

    const sub = nc.subscribe('search.>');
    expect(await sub.closed).toBeInstanceOf(PermissionViolationError);
    nc.publish(SUBJECTS.billing.creditsGrant, '{}');
    await nc.flush();
    await new Promise((r) => setTimeout(r, 200));
    expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "billing\.credits\.grant"/i);
    expect(errors.join('\n')).toMatch(/Permissions Violation for Subscription to "search\.>"/i);
  });

  it('a forged request with another workspace id from a non-gateway identity is refused by the server; the gateway and the operator are answered', async () => {
    const victim = await workspaceWithLead();
    const forged = { ctx: testContext({ workspace_id: victim.workspaceId }), body: { id: victim.leadId } };

    for (const identity of ['webhooks', 'billing', 'crm'] as const) {
      const { nc } = await as(identity);
      await expect(askService(nc, SUBJECTS.crm.leadsGet, forged, 2000)).rejects.toThrow(/permission/i);
    }

    // the same request from the identities allowed to carry a tenant's context reaches crm and is answered
    for (const identity of ['gateway', 'operator'] as const) {
      const { nc } = await as(identity);
      const packet = await askService<{ id: string }>(nc, SUBJECTS.crm.leadsGet, forged, 5000);
      expect(packet.response?.id).toBe(victim.leadId);
    }
  });

  it("workspaces, members and keys are the operator's to ask: a service's identity is refused by the server, the operator is answered by the gateway", async () => {
    for (const identity of ['crm', 'billing'] as const) {
      const { nc } = await as(identity);
      await expect(askService(nc, SUBJECTS.gateway.keysRevoke, { ctx: testContext(), body: { key_id: 'key_nope' } }, 2000)).rejects.toThrow(/permission/i);
    }
    const { nc } = await as('operator');
    const packet = await askService(nc, SUBJECTS.gateway.keysRevoke, { ctx: testContext(), body: { key_id: 'key_nope' } }, 5000);
    expect(packet.err).toMatchObject({ code: 'not_found', message: 'no key key_nope' });
  });

  it("no identity can read another's replies: a service's inbox is its own", async () => {
    const { nc } = await as('billing');
    const snoop = nc.subscribe(`${natsInboxPrefix('gateway')}.>`);
    expect(await snoop.closed).toBeInstanceOf(PermissionViolationError);
    const wide = nc.subscribe('_INBOX.>');
    expect(await wide.closed).toBeInstanceOf(PermissionViolationError);
  });

  it('a service cannot publish events it does not own, nor read another service\'s durable consumer', async () => {
    const { nc, errors } = await as('billing');
    nc.publish('events.lead.created', '{}');
    nc.publish('$JS.API.CONSUMER.MSG.NEXT.EVENTS.crm', '{}');
    await nc.flush();
    await new Promise((r) => setTimeout(r, 200));
    expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "events\.lead\.created"/i);
    expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "\$JS\.API\.CONSUMER\.MSG\.NEXT\.EVENTS\.crm"/i);
  });
});

/**
 * One compromised service cannot rewrite the bus: the EVENTS stream is the operator's to create
 * and change, and a service creates and reads only its own durable consumers, each filtered to
 * the subject libs/contracts/src/nats-flows.ts (NATS_DURABLES) documents. Billing's identity
 * stands for any service's: its durable `billing` reads `events.workspace.created`.
 */
describe('the EVENTS stream and its consumers under a service identity', () => {
  let mesh: TestMesh;
  const connections: NatsConnection[] = [];
  const DAY_NS = nanos(24 * 60 * 60 * 1000);

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm', 'billing']);
    // events in the stream, so a purge or a shortened age would show (the gateway's outbox relays
    // the workspace's event after its answer: waited for, on a loaded machine it may not be there yet)
    await mesh.workspace();
    const probe = await jetstreamManager(await nats('probe'));
    await waitFor('the workspace event in EVENTS', async () => (await probe.streams.info('EVENTS')).state.messages > 0, allowance(10_000));
  }, meshHookTimeoutMs(3));
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
    await mesh?.close();
  });

  async function nats(identity: NatsIdentity | 'probe'): Promise<NatsConnection> {
    const nc = await connectMesh(identity === 'probe' ? mesh.probeOptions() : mesh.identityOptions(identity));
    connections.push(nc);
    return nc;
  }

  /** The stream and billing's and crm's consumers as they are, read by the probe. */
  async function state(jsm: JetStreamManager) {
    const { config, state: stream } = await jsm.streams.info('EVENTS');
    const filterOf = async (durable: string) => (await jsm.consumers.info('EVENTS', durable)).config.filter_subject;
    return { subjects: config.subjects, max_age: config.max_age, messages: stream.messages, billing: await filterOf('billing'), crm: await filterOf('crm') };
  }

  /** A raw JetStream API request as the identity sends it; resolves with the server's answer. */
  async function ask(nc: NatsConnection, subject: string, body: unknown): Promise<string> {
    return (await nc.request(subject, JSON.stringify(body), { timeout: 3000 })).string();
  }

  it('a service cannot create, update, delete or purge the stream, nor make a stream of its own: the server refuses, and the stream keeps its subjects, age and events', async () => {
    const probe = await jetstreamManager(await nats('probe'));
    const before = await state(probe);
    expect(before).toMatchObject({ subjects: ['events.>'], max_age: 7 * DAY_NS, billing: 'events.workspace.created', crm: 'events.workspace.created' });
    expect(before.messages).toBeGreaterThan(0);

    const jsm = await jetstreamManager(await nats('billing'));
    const { config } = await jsm.streams.info('EVENTS'); // looking it up is allowed
    const widened: StreamConfig = { ...config, subjects: ['events.>', 'webhooks.listen.*'] };
    await expect(jsm.streams.update('EVENTS', widened)).rejects.toThrow(/permission/i);
    await expect(jsm.streams.update('EVENTS', { ...config, max_age: nanos(1000) })).rejects.toThrow(/permission/i);
    await expect(jsm.streams.add(config)).rejects.toThrow(/permission/i);
    await expect(jsm.streams.delete('EVENTS')).rejects.toThrow(/permission/i);
    await expect(jsm.streams.purge('EVENTS')).rejects.toThrow(/permission/i);
    await expect(jsm.streams.add({ name: 'SPY', subjects: ['webhooks.listen.*'] })).rejects.toThrow(/permission/i);

    expect(await state(probe)).toEqual(before);
    await expect(probe.streams.info('SPY')).rejects.toThrow(/not found/i);
  });

  it('a service cannot read beyond its documented subject: its own durable with another filter, the filter-less and legacy creates, an ephemeral consumer and another service\'s durable are refused', async () => {
    const probe = await jetstreamManager(await nats('probe'));
    const before = await state(probe);
    const nc = await nats('billing');
    const jsm = await jetstreamManager(nc);
    const durable = (name: string, filter: string) => ({ durable_name: name, ack_policy: AckPolicy.Explicit, filter_subject: filter });

    // its own durable, widened to every event or to another service's event
    await expect(jsm.consumers.add('EVENTS', durable('billing', 'events.>'))).rejects.toThrow(/permission/i);
    await expect(jsm.consumers.add('EVENTS', durable('billing', 'events.lead.created'))).rejects.toThrow(/permission/i);
    // the create forms that carry the filter in the body alone
    const wide = { stream_name: 'EVENTS', config: durable('billing', 'events.>') };
    await expect(ask(nc, '$JS.API.CONSUMER.CREATE.EVENTS.billing', wide)).rejects.toThrow(/permission/i);
    await expect(ask(nc, '$JS.API.CONSUMER.DURABLE.CREATE.EVENTS.billing', wide)).rejects.toThrow(/permission/i);
    // an ephemeral consumer, and a durable of its own choosing
    await expect(ask(nc, '$JS.API.CONSUMER.CREATE.EVENTS', { stream_name: 'EVENTS', config: { ack_policy: AckPolicy.Explicit, filter_subject: 'events.>' } })).rejects.toThrow(/permission/i);
    await expect(jsm.consumers.add('EVENTS', durable('billing-spy', 'events.>'))).rejects.toThrow(/permission/i);
    // crm's durable: not through crm's subject, and not through its own subject naming crm's durable (the server binds the name)
    await expect(jsm.consumers.add('EVENTS', durable('crm', 'events.workspace.created'))).rejects.toThrow(/permission/i);
    const takeover = await ask(nc, '$JS.API.CONSUMER.CREATE.EVENTS.billing.events.workspace.created', { stream_name: 'EVENTS', config: durable('crm', 'events.workspace.created') });
    expect(JSON.parse(takeover).error?.description).toMatch(/does not match/i);

    expect(await state(probe)).toEqual(before);
  });

  it('a service creates and reads its own durable with its documented filter', async () => {
    const nc = await nats('billing');
    const jsm = await jetstreamManager(nc);
    const { config } = await jsm.consumers.info('EVENTS', 'billing');
    // what the service does at every start: the same durable, the same filter
    const again = await jsm.consumers.add('EVENTS', { ...config, durable_name: 'billing' });
    expect(again.config.filter_subject).toBe('events.workspace.created');
    const consumer = await jetstream(nc).consumers.get('EVENTS', 'billing');
    const batch = await consumer.fetch({ max_messages: 1, expires: 1000 });
    // whatever it takes, the service reads again at once
    for await (const message of batch) message.nak();
    expect((await consumer.info(true)).config.filter_subject).toBe('events.workspace.created');
  });
});

/**
 * Whoever starts a mesh provisions the stream as the operator before the services start; a
 * service that finds no stream does not create it (its identity may not): it waits, saying so,
 * and is not ready until the stream exists.
 */
describe('a service started before the stream is provisioned', () => {
  let mesh: TestMesh;
  let app: RunningApp | undefined;
  let probeConnection: NatsConnection | undefined;

  beforeAll(async () => {
    mesh = await TestMesh.start([], {}, { provisionBus: false });
  }, meshHookTimeoutMs(0));
  afterAll(async () => {
    if (app) await stopApp(app, 3000);
    await probeConnection?.close().catch(() => undefined);
    await mesh?.close();
  });

  it('waits for it, logging who provisions it, without creating it, and is ready once the operator has', async () => {
    const log: string[] = [];
    app = spawnApp('billing', mesh.env, await freePort(), (line) => log.push(line));
    await waitFor('billing waiting for the stream', async () => log.some((line) => /waiting for the EVENTS stream/.test(line)), HARNESS.readyTimeoutMs, 100);
    expect(log.find((line) => /waiting for the EVENTS stream/.test(line))).toMatch(/migrate -- bus/);

    probeConnection = await connectMesh(mesh.probeOptions());
    const probe = await jetstreamManager(probeConnection);
    await expect(probe.streams.info('EVENTS')).rejects.toThrow(/not found/i);
    expect(await httpReady(app.port).catch(() => false)).toBe(false);

    expect(await mesh.provisionBus()).toBe('created');
    await waitFor('billing ready', () => httpReady(app!.port), HARNESS.readyTimeoutMs, 100);
    expect((await probe.consumers.info('EVENTS', 'billing')).config.filter_subject).toBe('events.workspace.created');
    expect((await probe.streams.info('EVENTS')).config.subjects).toEqual(['events.>']);
  });
});
