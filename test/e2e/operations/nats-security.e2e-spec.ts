import { connect, NatsConnection, PermissionViolationError } from '@nats-io/transport-node';
import { natsInboxPrefix, NatsIdentity, SUBJECTS } from '@app/contracts';
import { askService, connectMesh } from '@app/platform';
import { testContext, TestMesh } from '../../harness';

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
  });
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
