import { SUBJECTS } from '@app/contracts';
import { waitFor } from '../../../../tools/mesh/processes';
import { HttpsReceiver, TestCertificate, testCertificate } from '../../../../tools/webhooks/https-receiver';
import { TestMesh } from '../../../../test/harness';
import { decryptSecret } from '../secrets';

const SECRET_KEY = 'd'.repeat(64);

/**
 * Issue 34, item 7: a secret roll and a delivery sent again are keyed at the webhooks service as
 * creates are. The gateway hands the service the request's Idempotency-Key; a second gateway that
 * takes over a dead one's claim (or the RPC client retrying after a time-out) asks the service
 * again with the same key, and must get the first answer without a second roll or a second send.
 * The webhooks service alone on real PostgreSQL and NATS, asked over NATS as the gateway asks it,
 * delivering to a local HTTPS receiver.
 */
describe('webhooks: roll and retry asked twice with one Idempotency-Key', () => {
  let mesh: TestMesh;
  let cert: TestCertificate;
  let receiver: HttpsReceiver;
  const ctx = { workspace_id: 'ws_keyed', livemode: true, api_version: '2026-09-28' } as const;

  beforeAll(async () => {
    cert = await testCertificate();
    receiver = await HttpsReceiver.start(cert);
    mesh = await TestMesh.start(['webhooks'], {
      NODE_EXTRA_CA_CERTS: cert.caFile,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_TEST_CLOCK: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SECRET_KEY: SECRET_KEY,
    });
  }, 120_000);
  afterAll(async () => {
    await mesh?.close();
    await receiver?.close();
    cert?.dispose();
  });

  const until = (what: string, check: () => boolean | Promise<boolean>, ms = 15_000) => waitFor(what, async () => check(), ms, 50);
  const keyed = (key: string, requestHash = `hash-${key}`) => ({ ...ctx, idempotency: { key: `live:${key}`, request_hash: requestHash } });
  const createEndpoint = async (path: string) => {
    const { response, err } = await mesh.rpc(SUBJECTS.webhooks.endpointsCreate, ctx, { url: receiver.url(path), events: ['*'] });
    expect(err).toBeUndefined();
    return response as { id: string; secret: string };
  };
  const secretsOf = async (id: string) => {
    const [row] = await mesh.query('webhooks', 'SELECT secret_enc, previous_secret_enc FROM webhook_endpoints WHERE id = $1', [id]);
    return { current: decryptSecret(row.secret_enc, Buffer.from(SECRET_KEY, 'hex')), previous: row.previous_secret_enc && decryptSecret(row.previous_secret_enc, Buffer.from(SECRET_KEY, 'hex')) };
  };
  const roll = (c: object, id: string) => mesh.rpc(SUBJECTS.webhooks.endpointsRollSecret, c, { id });

  describe('webhooks.endpoints.rollSecret', () => {
    it('the same key twice rolls once and answers the same secret both times; the key rests only encrypted', async () => {
      const hook = await createEndpoint('/keyed/roll');
      const first = await roll(keyed('roll-1'), hook.id);
      expect(first.response).toMatchObject({ id: hook.id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.any(String) });
      const again = await roll(keyed('roll-1'), hook.id);
      expect(again).toEqual(first);
      // rolled once: the secret it replaced is the one made at creation, not the first roll's
      expect(await secretsOf(hook.id)).toEqual({ current: first.response.secret, previous: hook.secret });
      const [stored] = await mesh.query('webhooks', 'SELECT endpoint_id, answer FROM webhook_roll_keys WHERE key = $1', ['live:roll-1']);
      expect(stored.endpoint_id).toBe(hook.id);
      expect(stored.answer).not.toContain(first.response.secret.slice('whsec_'.length));
    });

    it('asked twice at once with one key (two gateways), it rolls once and both answers are the one roll', async () => {
      const hook = await createEndpoint('/keyed/roll-race');
      const [a, b] = await Promise.all([roll(keyed('roll-race'), hook.id), roll(keyed('roll-race'), hook.id)]);
      expect(a.err).toBeUndefined();
      expect(b).toEqual(a);
      expect(await secretsOf(hook.id)).toEqual({ current: a.response.secret, previous: hook.secret });
    });

    it('the key with another request is a conflict and rolls nothing; another workspace\'s key of the same name is its own', async () => {
      const hook = await createEndpoint('/keyed/roll-conflict');
      const first = await roll(keyed('roll-2'), hook.id);
      const other = await createEndpoint('/keyed/roll-other');
      expect((await roll(keyed('roll-2', 'another-request'), other.id)).err).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
      expect(await secretsOf(other.id)).toEqual({ current: other.secret, previous: null });
      expect(await secretsOf(hook.id)).toEqual({ current: first.response.secret, previous: hook.secret });
      expect((await roll({ ...keyed('roll-2'), workspace_id: 'ws_elsewhere' }, hook.id)).err).toMatchObject({ code: 'not_found' });
    });

    it('a roll refused (no such endpoint) releases its key', async () => {
      expect((await roll(keyed('roll-missing'), 'we_missing')).err).toMatchObject({ code: 'not_found', param: 'id' });
      expect(await mesh.query('webhooks', 'SELECT 1 FROM webhook_roll_keys WHERE key = $1', ['live:roll-missing'])).toEqual([]);
    });
  });

  describe('webhooks.deliveries.retry', () => {
    const attempts = async (endpointId: string) =>
      (await mesh.query('webhooks', 'SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [endpointId]))[0].n as number;
    /** An endpoint whose receiver answers 500, with one sample delivery whose first attempt failed. */
    const failedDelivery = async (path: string) => {
      const hook = await createEndpoint(path);
      receiver.respond(path, () => ({ status: 500 }));
      const { response: delivery } = await mesh.rpc(SUBJECTS.webhooks.endpointsTest, ctx, { id: hook.id, type: 'lead.created' });
      await until('attempt 1 recorded', async () => (await attempts(hook.id)) === 1);
      return { hook, delivery: delivery as { id: string } };
    };
    const retry = (c: object, endpointId: string, deliveryId: string) => mesh.rpc(SUBJECTS.webhooks.deliveriesRetry, c, { id: endpointId, delivery_id: deliveryId });

    it('the same key twice sends the delivery once more, not twice, and answers the same both times', async () => {
      const { hook, delivery } = await failedDelivery('/keyed/retry');
      const first = await retry(keyed('retry-1'), hook.id, delivery.id);
      expect(first.response).toMatchObject({ id: delivery.id, status: 'pending', attempts: [{ attempt: 1, status_code: 500 }] });
      await until('the resend', async () => receiver.at('/keyed/retry').length === 2 && (await attempts(hook.id)) === 2);
      // a second gateway asks again after the resend was made: the first answer, nothing sent
      const again = await retry(keyed('retry-1'), hook.id, delivery.id);
      expect(again).toEqual(first);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/keyed/retry')).toHaveLength(2);
      expect(await attempts(hook.id)).toBe(2);
    });

    it('asked twice at once with one key, it sends once more', async () => {
      const { hook, delivery } = await failedDelivery('/keyed/retry-race');
      const [a, b] = await Promise.all([retry(keyed('retry-race'), hook.id, delivery.id), retry(keyed('retry-race'), hook.id, delivery.id)]);
      expect(a.err).toBeUndefined();
      expect(b).toEqual(a);
      await until('the resend', async () => (await attempts(hook.id)) === 2);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.at('/keyed/retry-race')).toHaveLength(2);
    });

    it('without a key each request sends again; a refused retry (disabled endpoint) releases its key', async () => {
      const { hook, delivery } = await failedDelivery('/keyed/retry-unkeyed');
      await retry(ctx, hook.id, delivery.id);
      await until('attempt 2', async () => (await attempts(hook.id)) === 2);
      await retry(ctx, hook.id, delivery.id);
      await until('attempt 3', async () => (await attempts(hook.id)) === 3);
      await mesh.rpc(SUBJECTS.webhooks.endpointsUpdate, ctx, { id: hook.id, status: 'disabled' });
      expect((await retry(keyed('retry-disabled'), hook.id, delivery.id)).err).toMatchObject({ code: 'conflict', param: 'id' });
      expect(await mesh.query('webhooks', 'SELECT 1 FROM webhook_retry_keys WHERE key = $1', ['live:retry-disabled'])).toEqual([]);
    });
  });
});
