import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM } from '@app/contracts/subjects';
import { longTestMs, TestMesh } from '../harness';
import { allowance } from '../support/timing';

const BURST = 20_000;

async function streamCount(mesh: TestMesh): Promise<number> {
  const jsm = await jetstreamManager(await mesh.natsClient());
  try {
    return (await jsm.streams.info(EVENTS_STREAM)).state.messages;
  } catch {
    return 0;
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * The relay runs inside the crm process. A burst of outbox rows is waiting when crm starts;
 * crm is SIGKILLed while the relay is part-way through, then started again. Every event must
 * be in the stream exactly once: rows published but not yet marked are sent again and the
 * stream drops them as duplicates (Nats-Msg-Id = event id).
 */
describe('outbox relay killed mid-burst', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    mesh = await TestMesh.start(['crm']);
  });
  afterAll(() => mesh?.close());

  it('loses no event and duplicates none', async () => {
    await mesh.stopApp('crm');
    await mesh.query(
      'crm',
      `INSERT INTO outbox (id, type, envelope)
       SELECT 'evt_burst' || lpad(n::text, 6, '0'), 'lead.created',
              json_build_object('id', 'evt_burst' || lpad(n::text, 6, '0'), 'object', 'event', 'type', 'lead.created',
                                'api_version', '2026-09-28', 'created', now(), 'workspace_id', 'ws_burst', 'livemode', true,
                                'data', json_build_object('object', json_build_object('id', 'lead_' || n)))
         FROM generate_series(1, $1) AS n`,
      [BURST],
    );
    const before = await streamCount(mesh);

    await mesh.startApp('crm');
    await waitUntil(async () => (await streamCount(mesh)) - before >= BURST / 10, allowance(30_000));
    await mesh.killApp('crm');

    const publishedAtKill = (await streamCount(mesh)) - before;
    const [{ pending }] = await mesh.query<{ pending: string }>('crm', 'SELECT count(*) AS pending FROM outbox WHERE published_at IS NULL');
    expect(publishedAtKill).toBeLessThan(BURST);
    expect(Number(pending)).toBeGreaterThan(0);

    await mesh.startApp('crm');
    await waitUntil(async () => {
      const [{ left }] = await mesh.query<{ left: string }>('crm', 'SELECT count(*) AS left FROM outbox WHERE published_at IS NULL');
      return Number(left) === 0;
    }, allowance(60_000), 100);

    expect((await streamCount(mesh)) - before).toBe(BURST);
    const ids = new Set<string>();
    const consumer = await jetstream(await mesh.natsClient()).consumers.get(EVENTS_STREAM, { filter_subjects: 'events.lead.created' });
    const messages = await consumer.consume();
    for await (const message of messages) {
      const id = message.json<{ id: string }>().id;
      if (id.startsWith('evt_burst')) ids.add(id);
      if (message.info.pending === 0) break;
    }
    expect(ids.size).toBe(BURST);
  }, longTestMs(150_000)); // two restarts, and waits of 30 s + 60 s of the machine's allowance
});
