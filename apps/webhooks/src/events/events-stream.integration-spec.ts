import { Client } from 'pg';
import { SUBJECTS } from '@app/contracts';
import { newId } from '@app/platform/ids';
import { TestMesh } from '../../../../test/harness';
import { waitFor } from '../../../../tools/mesh/processes';

/**
 * webhooks.events.stream (GET /events/stream reads it): the workspace's stored events after a
 * position, in the order their transactions became final. An event stored by a transaction that
 * is still running when a newer event is already committed (the fan-out runs two transactions at
 * once, and each producer makes its own ids) is held back until it commits, then read before the
 * newer one: a reader that went on by id from the newer event would never see it. Only this
 * database's transactions hold events back: those of the server's other databases cannot store one.
 */
describe('webhooks events stream over NATS', () => {
  let mesh: TestMesh;
  let db: Client;
  const ws = { workspace_id: 'ws_stream', livemode: true };

  beforeAll(async () => {
    mesh = await TestMesh.start(['webhooks']);
    db = new Client({ connectionString: mesh.databaseUrl('webhooks') });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await mesh?.close();
  });

  const read = async (body: object, ctx: object = ws) => mesh.rpc(SUBJECTS.webhooks.eventsStream, ctx, { limit: 100, ...body });
  /**
   * A read once it has data: a transaction of this database (the service's own, say its claim's
   * heartbeat) that began before the insert's commit holds the events back until it ends, as it
   * does for a stream.
   */
  const readSome = async (body: object, ctx: object = ws) => {
    let answer: Awaited<ReturnType<typeof read>> | undefined;
    await waitFor('a read with events', async () => (answer = await read(body, ctx)).response?.data.length > 0, 10_000, 20);
    return answer!;
  };
  const insert = (on: { query: Client['query'] }, id: string, type = 'lead.created', workspaceId = ws.workspace_id, livemode = true) =>
    on.query(
      `INSERT INTO webhook_events (id, workspace_id, livemode, type, created, envelope) VALUES ($1, $2, $3, $4, now(), $5)`,
      [id, workspaceId, livemode, type, JSON.stringify({ id, object: 'event', type, api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: workspaceId, livemode, data: { object: { id: 'lead_x', object: 'lead' } } })],
    );

  it('holds back the events of a transaction still running, then reads them before the newer ones committed meanwhile', async () => {
    const start = await read({});
    expect(start.response).toEqual({ data: [], position: expect.stringMatching(/^\d+:$/), has_more: false });

    const older = newId('evt_', Date.now() - 60_000);
    const newer = newId('evt_');
    const slow = new Client({ connectionString: mesh.databaseUrl('webhooks') });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      await insert(slow, older);
      await insert(db, newer);
      const whileRunning = await read({ after: start.response.position });
      expect(whileRunning.response.data).toEqual([]);
      await slow.query('COMMIT');
    } finally {
      await slow.end();
    }
    const after = await readSome({ after: start.response.position });
    expect(after.response.data.map((e: { id: string }) => e.id)).toEqual([older, newer]);
    expect(after.response.data[0]).toEqual({ id: older, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: expect.any(String), workspace_id: ws.workspace_id, livemode: true, data: { object: { id: 'lead_x', object: 'lead' } } });
    // nothing twice: from the position it answered, nothing more
    expect((await read({ after: after.response.position })).response.data).toEqual([]);
    // resuming after the older event by its id reads the newer one only
    expect((await readSome({ last_event_id: older })).response.data.map((e: { id: string }) => e.id)).toEqual([newer]);
  });

  /** A transaction with an xid, left running in another database of the same server (another service's, say). */
  const elsewhere = async () => {
    const url = new URL(mesh.databaseUrl('webhooks'));
    url.pathname = '/postgres';
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    await client.query('BEGIN');
    const { rows } = await client.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid');
    return { xid: BigInt(rows[0].xid), end: () => client.end() };
  };
  const positionTx = (position: string) => BigInt(position.split(':')[0]);

  it('a transaction running in another database of the server holds nothing back: the start is past it and an event is read while it runs', async () => {
    const foreign = await elsewhere();
    try {
      // a transaction given an id after the foreign one, ended: the server's snapshots now hold the
      // foreign one running below their xmax, as on any server with other work. On a server with
      // none (a quiet run), xmax stays at the foreign id and no start can be past it, however the
      // horizon is taken
      await db.query('SELECT pg_current_xact_id()');
      let start: Awaited<ReturnType<typeof read>> | undefined;
      await waitFor('a start past the other database\'s transaction', async () => positionTx((start = await read({})).response.position) > foreign.xid, 10_000, 20);
      const id = newId('evt_');
      await insert(db, id);
      const after = await readSome({ after: start!.response.position });
      expect(after.response.data.map((e: { id: string }) => e.id)).toEqual([id]);
      expect(positionTx(after.response.position)).toBeGreaterThan(foreign.xid);
    } finally {
      await foreign.end();
    }
  });

  it('beside a transaction of another database, a transaction of this one still holds back its events and every one committed after it', async () => {
    const foreign = await elsewhere();
    const slow = new Client({ connectionString: mesh.databaseUrl('webhooks') });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const older = newId('evt_', Date.now() - 60_000);
      await insert(slow, older);
      const { rows: [{ xid }] } = await slow.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid');
      // a stream started now starts before the running transaction of this database: its event is not skipped
      const start = await read({});
      expect(positionTx(start.response.position)).toBeLessThanOrEqual(BigInt(xid));
      const newer = newId('evt_');
      await insert(db, newer);
      const whileRunning = await read({ after: start.response.position });
      expect(whileRunning.response.data).toEqual([]);
      expect(positionTx(whileRunning.response.position)).toBeLessThanOrEqual(BigInt(xid));
      await slow.query('COMMIT');
      const after = await readSome({ after: whileRunning.response.position });
      expect(after.response.data.map((e: { id: string }) => e.id)).toEqual([older, newer]);
    } finally {
      await slow.end();
      await foreign.end();
    }
  });

  it('keeps to the workspace, its mode and the types asked; a full page says has_more and the next read goes on from it', async () => {
    const start = await read({});
    const ids = [newId('evt_'), newId('evt_'), newId('evt_')];
    await insert(db, ids[0]);
    await insert(db, ids[1], 'credits.low');
    await insert(db, ids[2]);
    await insert(db, newId('evt_'), 'lead.created', 'ws_other');
    await insert(db, newId('evt_'), 'lead.created', ws.workspace_id, false);
    await waitFor('the three final', async () => (await read({ after: start.response.position })).response.data.length === 3, 10_000, 20);
    const page = await read({ after: start.response.position, limit: 2 });
    expect({ ids: page.response.data.map((e: { id: string }) => e.id), has_more: page.response.has_more }).toEqual({ ids: ids.slice(0, 2), has_more: true });
    const next = await read({ after: page.response.position, limit: 2 });
    expect({ ids: next.response.data.map((e: { id: string }) => e.id), has_more: next.response.has_more }).toEqual({ ids: [ids[2]], has_more: false });
    const lows = await read({ after: start.response.position, types: ['credits.low'] });
    expect(lows.response.data.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
  });

  it('a last_event_id of another workspace, of the other mode or of none, and a position no read answered, are invalid_request', async () => {
    const foreign = newId('evt_');
    await insert(db, foreign, 'lead.created', 'ws_other');
    for (const id of [foreign, 'evt_missing']) {
      expect((await read({ last_event_id: id })).err).toMatchObject({ code: 'invalid_request', param: 'Last-Event-ID' });
    }
    expect((await read({ last_event_id: foreign }, { workspace_id: 'ws_other', livemode: false })).err).toMatchObject({ code: 'invalid_request', param: 'Last-Event-ID' });
    for (const after of ['nope', '12', ':evt_x', `${'9'.repeat(21)}:`]) {
      expect((await read({ after })).err).toMatchObject({ code: 'invalid_request', param: 'after' });
    }
  });
});
