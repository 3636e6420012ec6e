import { TestMesh } from '../../harness';
import { EventStreamReader } from '../../support/event-stream';
import { createLead, listPage } from '../../support/leads';
import { expectApiError, expectRequestId } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

const LENSES = ['leads', 'investors', 'researchers', 'grants'];

describe('pipelines, stages and stage moves', () => {
  let mesh: TestMesh;
  let events: EventStreamReader;
  let key: string;
  let otherKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    events = new EventStreamReader(await mesh.natsClient(), mesh.eventsAfter);
    const [mine, other] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    key = mine.key;
    workspaceId = mine.workspace.id;
    otherKey = other.key;
  });
  afterAll(() => mesh?.close());

  const pipelines = async (k = key) => {
    const res = await mesh.request('GET', '/pipelines', { key: k });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('a new workspace gets its pipelines from workspace.created, before any request', async () => {
    const { workspace } = await mesh.workspace();
    const deadline = Date.now() + allowance(10_000);
    let count = 0;
    while (Date.now() < deadline && count === 0) {
      count = Number((await mesh.query('crm', 'SELECT count(*) AS n FROM pipelines WHERE workspace_id = $1', [workspace.id]))[0].n);
      if (count === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(count).toBe(5);
  });

  it('GET /pipelines lists the default pipeline and one template per lens, stages in order', async () => {
    const list = await pipelines();
    expect(list).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(list.data).toHaveLength(5);
    const defaults = list.data.filter((p: any) => p.is_default);
    expect(defaults).toHaveLength(1);
    expect(defaults[0].lens).toBeNull();
    expect(list.data.map((p: any) => p.lens).filter(Boolean).sort()).toEqual([...LENSES].sort());
    for (const pipeline of list.data) {
      expect(pipeline).toMatchObject({ object: 'pipeline', name: expect.any(String) });
      expect(pipeline.id).toMatch(/^pl_/);
      expect(new Date(pipeline.created_at).toISOString()).toBe(pipeline.created_at);
      expect(pipeline.stages.map((s: any) => s.position)).toEqual(pipeline.stages.map((_: any, i: number) => i));
      for (const stage of pipeline.stages) {
        expect(stage.id).toMatch(/^st_/);
        expect(['open', 'won', 'lost']).toContain(stage.kind);
        expect(Object.keys(stage).sort()).toEqual(['id', 'kind', 'name', 'position']);
      }
      const kinds = pipeline.stages.map((s: any) => s.kind);
      expect(kinds[0]).toBe('open');
      expect(kinds).toContain('won');
      expect(kinds).toContain('lost');
    }
  });

  it('concurrent first requests of a fresh workspace provision the pipelines once', async () => {
    const { key: fresh, workspace } = await mesh.workspace();
    const lists = await Promise.all(Array.from({ length: 8 }, () => mesh.request('GET', '/pipelines', { key: fresh })));
    expect(lists.every((r) => r.status === 200 && r.body.data.length === 5)).toBe(true);
    const [{ n }] = await mesh.query('crm', 'SELECT count(*)::int AS n FROM pipelines WHERE workspace_id = $1', [workspace.id]);
    expect(n).toBe(5);
  });

  it('pages with limit and starting_after; limit out of range is 400', async () => {
    const first = await mesh.request('GET', '/pipelines?limit=2', { key });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const rest = await mesh.request('GET', `/pipelines?limit=100&starting_after=${first.body.next_cursor}`, { key });
    expect(rest.body.data).toHaveLength(3);
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
    expectApiError(await mesh.request('GET', '/pipelines?limit=0', { key }), 400, 'invalid_request', 'limit');
    expectApiError(await mesh.request('GET', '/pipelines?lens=leads', { key }), 400, 'invalid_request', 'lens');
  });

  it('PUT /leads/{id}/stage moves the lead, filters by stage, and emits lead.stage_changed', async () => {
    const list = await pipelines();
    const main = list.data.find((p: any) => p.is_default);
    const investors = list.data.find((p: any) => p.lens === 'investors');
    const lead = await createLead(mesh, key, { full_name: 'Stage Mover', email: 'mover@stages.example' });
    expect(lead.stage).toEqual({ pipeline_id: main.id, stage_id: main.stages[0].id, name: main.stages[0].name });

    const target = main.stages[2];
    const moved = await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: target.id } });
    expect(moved.status).toBe(200);
    expectRequestId(moved);
    expect(moved.body).toMatchObject({ id: lead.id, object: 'lead', stage: { pipeline_id: main.id, stage_id: target.id, name: target.name } });
    expect(moved.body.sources).toEqual(expect.any(Array));

    const inStage = await listPage(mesh, key, `stage_id=${target.id}`);
    expect(inStage.data.map((l: any) => l.id)).toEqual([lead.id]);

    const event = await events.waitFor((e) => e.envelope.type === 'lead.stage_changed' && e.envelope.data.object.lead_id === lead.id);
    expect(event.subject).toBe('events.lead.stage_changed');
    expect(event.envelope).toMatchObject({ object: 'event', workspace_id: workspaceId, livemode: true, api_version: '2026-09-28' });
    expect(event.envelope.data.object).toEqual({
      object: 'lead_stage_change',
      lead_id: lead.id,
      pipeline_id: main.id,
      from_stage: { pipeline_id: main.id, stage_id: main.stages[0].id, name: main.stages[0].name },
      to_stage: { pipeline_id: main.id, stage_id: target.id, name: target.name },
      changed_at: moved.body.updated_at,
    });

    const across = await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: investors.stages[1].id } });
    expect(across.body.stage).toEqual({ pipeline_id: investors.id, stage_id: investors.stages[1].id, name: investors.stages[1].name });
    const second = await events.waitFor((e) => e.envelope.type === 'lead.stage_changed' && e.envelope.data.object.to_stage?.stage_id === investors.stages[1].id);
    expect(second.envelope.data.object).toMatchObject({ pipeline_id: investors.id, from_stage: { stage_id: target.id } });
  });

  it('moving a lead to the stage it is in changes nothing and emits nothing', async () => {
    const lead = await createLead(mesh, key, { full_name: 'Stays Put' });
    const same = await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: lead.stage.stage_id } });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(lead.updated_at);
    await new Promise((r) => setTimeout(r, 1500));
    const stageEvents = (await events.all()).filter((e) => e.envelope.type === 'lead.stage_changed' && e.envelope.data.object.lead_id === lead.id);
    expect(stageEvents).toEqual([]);
  });

  it('refuses unknown stages and leads with 404 naming the field, and bad bodies with 400', async () => {
    const lead = await createLead(mesh, key, { full_name: 'Bad Moves' });
    const foreign = (await pipelines(otherKey)).data[0].stages[1].id;
    expectApiError(await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: 'st_nope' } }), 404, 'not_found', 'stage_id');
    expectApiError(await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: foreign } }), 404, 'not_found', 'stage_id');
    expectApiError(await mesh.request('PUT', `/leads/lead_nope/stage`, { key, body: { stage_id: lead.stage.stage_id } }), 404, 'not_found', 'id');
    expectApiError(await mesh.request('PUT', `/leads/${lead.id}/stage`, { key: otherKey, body: { stage_id: foreign } }), 404, 'not_found', 'id');
    expectApiError(await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: {} }), 400, 'invalid_request', 'stage_id');
    expectApiError(await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: 7 } }), 400, 'invalid_request', 'stage_id');
    expectApiError(await mesh.request('PUT', `/leads/${lead.id}/stage`, { key, body: { stage_id: lead.stage.stage_id, pipeline_id: 'x' } }), 400, 'invalid_request', 'pipeline_id');
    const unchanged = await mesh.request('GET', `/leads/${lead.id}`, { key });
    expect(unchanged.body.stage).toEqual(lead.stage);
  });
});
