import { Pool } from 'pg';
import { SUBJECTS } from '@app/contracts';
import { TestMesh } from '../../../../test/harness';
import { EventStreamReader } from '../../../../test/support/event-stream';
import { LeadsRepository } from './leads.repository';

/** crm alone against real PostgreSQL and NATS, driven over request-reply as the gateway does. */
describe('crm leads over NATS', () => {
  let mesh: TestMesh;
  let events: EventStreamReader;
  const A = { workspace_id: 'ws_a' };
  const B = { workspace_id: 'ws_b' };

  beforeAll(async () => {
    mesh = await TestMesh.start(['crm']);
    events = new EventStreamReader(await mesh.natsClient());
  });
  afterAll(() => mesh?.close());

  async function create(ctx: object, body: object) {
    const { response, err } = await mesh.rpc(SUBJECTS.crm.leadsCreate, ctx, body);
    if (err) throw new Error(`create failed: ${JSON.stringify(err)}`);
    return response;
  }

  const outboxFor = (leadId: string) =>
    mesh.query('crm', `SELECT id, type, envelope, created_at, published_at FROM outbox WHERE envelope->'data'->'object'->>'id' = $1 ORDER BY seq`, [leadId]);

  it('create writes the lead and its lead.created outbox row in the same transaction', async () => {
    const lead = await create(A, {
      first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958',
      company_name: 'Analytical Engines', company_domain: 'https://www.analytical.example/', tags: ['vip'],
      source_url: 'https://example.com/team',
    });
    expect(lead).toMatchObject({ object: 'lead', full_name: 'Ada Lovelace', email: 'ada@example.com', phone: '+442079460958' });
    expect(lead.id).toMatch(/^lead_/);

    const [row] = await mesh.query('crm', 'SELECT workspace_id, email, created_at FROM leads WHERE id = $1', [lead.id]);
    expect(row).toMatchObject({ workspace_id: 'ws_a', email: 'ada@example.com' });

    const outbox = await outboxFor(lead.id);
    expect(outbox).toHaveLength(1);
    expect(outbox[0].type).toBe('lead.created');
    expect(outbox[0].id).toMatch(/^evt_/);
    expect(outbox[0].envelope).toMatchObject({ id: outbox[0].id, type: 'lead.created', workspace_id: 'ws_a', data: { object: lead } });
    // now() is the start time of the transaction: equal timestamps mean one transaction wrote both rows
    expect(outbox[0].created_at.toISOString()).toBe(row.created_at.toISOString());

    const [company] = await mesh.query('crm', 'SELECT domain, name FROM companies WHERE id = $1', [lead.company_id]);
    expect(company).toEqual({ domain: 'analytical.example', name: 'Analytical Engines' });
  });

  describe('a lead with nothing else to write: one statement writes it and its event', () => {
    const C = { workspace_id: 'ws_one_statement', livemode: true, api_version: '2026-09-28' as const };

    it('the outbox holds the envelope a transaction would write, byte for byte, written with the lead', async () => {
      const lead = await create(C, { full_name: 'One Statement', email: 'one@example.com', title: 'VP "Sales"', custom_fields: { note: 'ünïcode \u2028 "quoted" \\ back' } });
      expect(lead.stage).toMatchObject({ pipeline_id: expect.any(String), stage_id: expect.any(String), name: expect.any(String) });
      const [row] = await mesh.query('crm', 'SELECT id, type, envelope::text AS text, created_at FROM outbox WHERE envelope->\'data\'->\'object\'->>\'id\' = $1', [lead.id]);
      const envelope = JSON.parse(row.text);
      expect(envelope).toEqual({
        id: row.id, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: expect.any(String), workspace_id: C.workspace_id, livemode: true,
        data: { object: lead },
      });
      // what recordEvent writes: JSON.stringify of the envelope with the rendered lead
      expect(row.text).toBe(JSON.stringify({ ...envelope, data: { object: lead } }));
      const [written] = await mesh.query('crm', 'SELECT created_at FROM leads WHERE id = $1', [lead.id]);
      // now() is the start of the transaction: the same instant for both rows
      expect(row.created_at.toISOString()).toBe(written.created_at.toISOString());
    });

    it('carries a stage name PostgreSQL must quote as JSON, and a null stage when the workspace has no default pipeline', async () => {
      const first = await create(C, { full_name: 'Stage Named' });
      await mesh.query('crm', 'UPDATE stages SET name = $2 WHERE id = $1', [first.stage.stage_id, 'Fresh "lead" \\ ✓\tnew']);
      const named = await create(C, { full_name: 'Stage Quoted' });
      expect(named.stage.name).toBe('Fresh "lead" \\ ✓\tnew');
      const [quoted] = await mesh.query('crm', 'SELECT envelope::text AS text FROM outbox WHERE envelope->\'data\'->\'object\'->>\'id\' = $1', [named.id]);
      expect(JSON.parse(quoted.text).data.object).toEqual(named);
      expect(quoted.text).toContain(JSON.stringify({ pipeline_id: named.stage.pipeline_id, stage_id: named.stage.stage_id, name: named.stage.name }));

      await mesh.query('crm', 'UPDATE pipelines SET is_default = false WHERE workspace_id = $1', [C.workspace_id]);
      const stageless = await create(C, { full_name: 'No Stage' });
      expect(stageless.stage).toBeNull();
      const [none] = await mesh.query('crm', 'SELECT envelope::text AS text FROM outbox WHERE envelope->\'data\'->\'object\'->>\'id\' = $1', [stageless.id]);
      expect(JSON.parse(none.text).data.object).toEqual(stageless);
      expect(none.text).toContain('"stage":null');
    });

    it('with sources and custom fields, the event carries the same lead the API returns', async () => {
      const lead = await create(C, { first_name: 'Sourced', last_name: 'Lead', country: 'de', source_url: 'https://example.com/team', custom_fields: { zeta: 1, a: [true, null] } });
      expect(lead.sources.length).toBeGreaterThan(0);
      const [row] = await mesh.query('crm', 'SELECT envelope::text AS text FROM outbox WHERE envelope->\'data\'->\'object\'->>\'id\' = $1', [lead.id]);
      expect(JSON.parse(row.text).data.object).toEqual(lead);
    });

    it('a duplicate email writes neither the lead nor its event', async () => {
      const existing = await create(C, { full_name: 'Taken', email: 'taken@example.com' });
      const before = (await mesh.query('crm', 'SELECT count(*)::int AS n FROM outbox'))[0].n;
      const { err } = await mesh.rpc(SUBJECTS.crm.leadsCreate, C, { full_name: 'Taken Again', email: 'TAKEN@example.com' });
      expect(err).toMatchObject({ code: 'conflict', param: 'email' });
      expect(err.message).toContain(existing.id);
      expect((await mesh.query('crm', 'SELECT count(*)::int AS n FROM outbox'))[0].n).toBe(before);
    });

    it('its event is published to the EVENTS stream', async () => {
      const lead = await create(C, { full_name: 'Published One' });
      const event = await events.waitFor((e) => e.envelope.data?.object?.id === lead.id);
      expect(event.subject).toBe('events.lead.created');
      expect(event.envelope.data.object).toEqual(lead);
    });
  });

  it('a create that fails inside the transaction leaves nothing behind: no lead, company, tag or event', async () => {
    const first = await create(A, { full_name: 'Grace Hopper', email: 'Grace@Example.com' });
    const count = async () =>
      (await mesh.query('crm', `SELECT
         (SELECT count(*) FROM leads)::int AS leads, (SELECT count(*) FROM outbox)::int AS outbox,
         (SELECT count(*) FROM companies)::int AS companies, (SELECT count(*) FROM tags)::int AS tags`))[0];
    const before = await count();

    const { response, err } = await mesh.rpc(SUBJECTS.crm.leadsCreate, A, {
      full_name: 'Grace Again', email: 'grace@EXAMPLE.com', company_name: 'Ghost Industries', company_domain: 'ghost.example',
      tags: ['ghost-tag'],
    });
    expect(response).toBeUndefined();
    expect(err).toMatchObject({ code: 'conflict', param: 'email' });
    expect(err.message).toContain(first.id);

    expect(await count()).toEqual(before);
    expect(await mesh.query('crm', `SELECT 1 FROM companies WHERE domain = 'ghost.example' OR name = 'Ghost Industries'`)).toEqual([]);
    expect(await mesh.query('crm', `SELECT 1 FROM tags WHERE name = 'ghost-tag'`)).toEqual([]);
  });

  it.each([
    ['the same address', 'dup@example.com', 'dup@example.com'],
    ['another case', 'Dup.Case@Example.COM', 'dup.case@example.com'],
  ])('a duplicate email in the workspace (%s) is a conflict on email naming the existing lead', async (_label, first, second) => {
    const existing = await create(A, { full_name: 'First', email: first });
    const { err } = await mesh.rpc(SUBJECTS.crm.leadsCreate, A, { full_name: 'Second', email: second });
    expect(err).toMatchObject({ code: 'conflict', param: 'email' });
    expect(err.message).toContain(existing.id);
    const rows = await mesh.query('crm', 'SELECT id FROM leads WHERE workspace_id = $1 AND lower(email) = lower($2)', ['ws_a', first]);
    expect(rows).toEqual([{ id: existing.id }]);
  });

  describe('workspace isolation', () => {
    let lead: any;
    beforeAll(async () => {
      lead = await create(A, { full_name: 'Only In A', email: 'isolated@example.com', tags: ['a-only'] });
    });

    it('another workspace cannot read it', async () => {
      const { err } = await mesh.rpc(SUBJECTS.crm.leadsGet, B, { id: lead.id });
      expect(err).toMatchObject({ code: 'not_found' });
      const own = await mesh.rpc(SUBJECTS.crm.leadsGet, A, { id: lead.id });
      expect(own.response).toMatchObject({ id: lead.id, full_name: 'Only In A' });
    });

    it('reads asked together are answered as each alone: another workspace, an unknown id and a repeat among them', async () => {
      const other = await create(A, { full_name: 'Also In A', email: 'also-a@example.com' });
      const asks = [[A, lead.id], [B, lead.id], [A, 'lead_unknown'], [A, other.id], [A, lead.id], [B, other.id]] as const;
      const together = await Promise.all(asks.map(([ctx, id]) => mesh.rpc(SUBJECTS.crm.leadsGet, ctx, { id })));
      const alone = [];
      for (const [ctx, id] of asks) alone.push(await mesh.rpc(SUBJECTS.crm.leadsGet, ctx, { id }));
      expect(together).toEqual(alone);
      expect(together.map((r) => r.response?.id ?? r.err?.code)).toEqual([lead.id, 'not_found', 'not_found', other.id, lead.id, 'not_found']);

      // in one turn of crm's event loop they are one statement (LeadsRepository over crm's real database)
      const pool = new Pool({ connectionString: mesh.databaseUrl('crm'), max: 2 });
      try {
        const repository = new LeadsRepository(pool);
        const statements = jest.spyOn(pool, 'query');
        const rows = await Promise.all(asks.map(([ctx, id]) => repository.findById(ctx.workspace_id, id)));
        expect(statements).toHaveBeenCalledTimes(1);
        expect(rows.map((row) => row && [row.workspace_id, row.id])).toEqual([['ws_a', lead.id], undefined, undefined, ['ws_a', other.id], ['ws_a', lead.id], undefined]);
        expect(rows[0]).toEqual(await repository.findById('ws_a', lead.id));
      } finally {
        await pool.end();
      }
    });

    it('another workspace does not list it, even with a filter that matches it', async () => {
      const { response } = await mesh.rpc(SUBJECTS.crm.leadsList, B, { limit: 100, q: 'Only In A' });
      expect(response.data).toEqual([]);
      const all = await mesh.rpc(SUBJECTS.crm.leadsList, B, { limit: 100 });
      expect(all.response.data.map((l: any) => l.id)).not.toContain(lead.id);
      const own = await mesh.rpc(SUBJECTS.crm.leadsList, A, { limit: 100, tag: 'a-only' });
      expect(own.response.data.map((l: any) => l.id)).toEqual([lead.id]);
    });

    it('another workspace cannot change or delete it', async () => {
      const update = await mesh.rpc(SUBJECTS.crm.leadsUpdate, B, { id: lead.id, changes: { title: 'Hijacked' } });
      expect(update.err).toMatchObject({ code: 'not_found' });
      const del = await mesh.rpc(SUBJECTS.crm.leadsDelete, B, { id: lead.id });
      expect(del.err).toMatchObject({ code: 'not_found' });
      const [row] = await mesh.query('crm', 'SELECT title, workspace_id FROM leads WHERE id = $1', [lead.id]);
      expect(row).toEqual({ title: null, workspace_id: 'ws_a' });
    });

    it('the same email may exist once in each workspace', async () => {
      const other = await create(B, { full_name: 'Also In B', email: 'ISOLATED@example.com' });
      expect(other.id).not.toBe(lead.id);
    });
  });

  describe('events on the EVENTS stream', () => {
    it('lead.created arrives once on events.lead.created with the spec envelope', async () => {
      const lead = await create({ ...A, livemode: true }, { full_name: 'Evented', email: 'evented@example.com' });
      const event = await events.waitFor((e) => e.envelope.data?.object?.id === lead.id);
      expect(event.subject).toBe('events.lead.created');
      const { envelope } = event;
      expect(envelope).toEqual({
        id: expect.stringMatching(/^evt_/),
        object: 'event',
        type: 'lead.created',
        api_version: '2026-09-28',
        created: expect.any(String),
        workspace_id: 'ws_a',
        livemode: true,
        data: { object: lead },
      });
      expect(new Date(envelope.created).toISOString()).toBe(envelope.created);
      expect(Math.abs(Date.parse(envelope.created) - Date.parse(lead.created_at))).toBeLessThan(5000);

      const [outbox] = await outboxFor(lead.id);
      expect(outbox.id).toBe(envelope.id);
      const published = await mesh.query('crm', 'SELECT published_at FROM outbox WHERE id = $1', [envelope.id]);
      expect(published[0].published_at).not.toBeNull();
      expect((await events.all()).filter((e) => e.envelope.id === envelope.id)).toHaveLength(1);
    });

    it('a test-mode create emits livemode false', async () => {
      const lead = await create({ ...A, mode: 'test', livemode: false }, { full_name: 'Test Mode Lead' });
      const { envelope } = await events.waitFor((e) => e.envelope.data?.object?.id === lead.id);
      expect(envelope).toMatchObject({ type: 'lead.created', livemode: false, workspace_id: 'ws_a' });
    });

    it('lead.updated carries the new lead and previous_attributes with the old values', async () => {
      const lead = await create(A, { full_name: 'Before', first_name: 'Old', title: 'Engineer', phone: '+1 202 456 1111' });
      const { response: updated, err } = await mesh.rpc(SUBJECTS.crm.leadsUpdate, A, { id: lead.id, changes: { title: 'CTO', phone: null } });
      expect(err).toBeUndefined();
      const event = await events.waitFor((e) => e.envelope.type === 'lead.updated' && e.envelope.data.object.id === lead.id);
      expect(event.subject).toBe('events.lead.updated');
      expect(event.envelope).toMatchObject({ object: 'event', workspace_id: 'ws_a', api_version: '2026-09-28', livemode: true });
      expect(event.envelope.id).toMatch(/^evt_/);
      expect(event.envelope.data.object).toEqual(updated);
      expect(event.envelope.data.previous_attributes).toEqual({ title: 'Engineer', phone: '+12024561111' });
    });
  });
});
