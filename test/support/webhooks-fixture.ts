import { HttpsReceiver, TestCertificate, testCertificate } from '../../tools/webhooks/https-receiver';
import { TestMesh } from '../harness';

export type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

/** A gateway and the webhooks service delivering to a local HTTPS receiver; two workspaces, the first with a test key too. */
export interface WebhooksFixture {
  mesh: TestMesh;
  cert: TestCertificate;
  receiver: HttpsReceiver;
  ws: Workspace;
  other: Workspace;
  testKey: string;
}

/** Starts it, the webhooks settings of `env` added to the receiver's trust and address. */
export async function startWebhooksFixture(env: Record<string, string>): Promise<WebhooksFixture> {
  const cert = await testCertificate();
  const receiver = await HttpsReceiver.start(cert);
  let mesh: TestMesh | undefined;
  try {
    mesh = await TestMesh.start(['gateway'], {
      NODE_EXTRA_CA_CERTS: cert.caFile,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      ...env,
    });
    // one after the other: services starting at once can outlast the harness's start-up wait on a busy machine
    await mesh.startApp('webhooks');
    const [ws, other] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    const testKey = (await mesh.key(ws.workspace.id, 'test')).key as string;
    return { mesh, cert, receiver, ws, other, testKey };
  } catch (err) {
    await closeWebhooksFixture({ mesh, cert, receiver });
    throw err;
  }
}

/**
 * Deletes every webhook endpoint of a workspace (with their deliveries), after a test that made
 * its own: a workspace has at most WEBHOOK_LIMITS.endpoints. In the database, so the key's
 * request budget is the test's alone.
 */
export async function deleteEndpoints(mesh: TestMesh, workspaceId: string): Promise<void> {
  // the webhooks service may be settling a delivery of these endpoints meanwhile, locking its rows
  // in another order than the cascade: PostgreSQL then aborts one of the two, and this one is tried again
  for (let attempt = 1; ; attempt++) {
    try {
      await mesh.query('webhooks', 'DELETE FROM webhook_endpoints WHERE workspace_id = $1', [workspaceId]);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== DEADLOCK_DETECTED || attempt === 5) throw err;
    }
  }
}

const DEADLOCK_DETECTED = '40P01';

export async function closeWebhooksFixture(fixture: Partial<WebhooksFixture>): Promise<void> {
  await fixture.mesh?.close();
  await fixture.receiver?.close();
  fixture.cert?.dispose();
}
