import { SUBJECTS } from '@app/contracts';
import { TestMesh } from '../../../../test/harness';

/** crm's lists over request-reply, against real PostgreSQL and NATS: what crm itself checks, and a delete racing list changes. */
describe('crm lists over NATS', () => {
  let mesh: TestMesh;
  const A = { workspace_id: 'ws_a', member_id: 'usr_a', owner_id: 'usr_a', key_id: 'admin-cli' };
  const B = { workspace_id: 'ws_b', member_id: 'usr_b', owner_id: 'usr_b', key_id: 'admin-cli' };

  beforeAll(async () => {
    mesh = await TestMesh.start(['crm']);
  });
  afterAll(() => mesh?.close());

  async function call(subject: string, ctx: object, body: object) {
    const { response, err } = await mesh.rpc(subject, ctx, body);
    if (err) throw new Error(`${subject} failed: ${JSON.stringify(err)}`);
    return response;
  }
  const lead = (ctx: object, name: string) => call(SUBJECTS.crm.leadsCreate, ctx, { full_name: name });
  const members = async (listId: string) =>
    (await mesh.query('crm', 'SELECT lead_id FROM list_members WHERE list_id = $1 ORDER BY lead_id', [listId])).map((r) => r.lead_id);

  it.each<[string, object]>([
    ['no name', {}],
    ['a name that is not a string', { name: 7 }],
    ['a blank name', { name: ' \t ' }],
    ['a name over 200 characters', { name: 'n'.repeat(201) }],
  ])('list create: %s is invalid_request on name and stores nothing', async (_label, body) => {
    const { response, err } = await mesh.rpc(SUBJECTS.crm.listsCreate, A, body);
    expect(response).toBeUndefined();
    expect(err).toMatchObject({ code: 'invalid_request', param: 'name' });
    expect(await mesh.query('crm', 'SELECT count(*)::int AS n FROM lists')).toEqual([{ n: 0 }]);
  });

  it.each<[string, string, string, (listId: string, leadId: string) => object]>([
    ['no list_id', 'invalid_request', 'list_id', (_l, lead) => ({ lead_ids: [lead] })],
    ['no lead_ids', 'invalid_request', 'lead_ids', (list) => ({ list_id: list })],
    ['lead_ids not an array', 'invalid_request', 'lead_ids', (list, lead) => ({ list_id: list, lead_ids: lead })],
    ['an empty lead_ids', 'invalid_request', 'lead_ids', (list) => ({ list_id: list, lead_ids: [] })],
    ['a lead id that is not a string', 'invalid_request', 'lead_ids', (list, lead) => ({ list_id: list, lead_ids: [lead, 5] })],
    ['over 1,000 lead ids', 'invalid_request', 'lead_ids', (list, lead) => ({ list_id: list, lead_ids: Array(1001).fill(lead) })],
    ['another workspace\'s list', 'not_found', 'list_id', (_l, lead) => ({ list_id: 'B', lead_ids: [lead] })],
  ])('list add and remove: %s is %s on %s and changes nothing', async (_label, code, param, body) => {
    const list = await call(SUBJECTS.crm.listsCreate, A, { name: `checked ${param} ${Math.random()}` });
    const theirs = await call(SUBJECTS.crm.listsCreate, B, { name: `theirs ${Math.random()}` });
    const target = await lead(A, 'Checked');
    const request = body(list.id, target.id) as { list_id?: string };
    if (request.list_id === 'B') request.list_id = theirs.id;
    for (const subject of [SUBJECTS.crm.listsAddLeads, SUBJECTS.crm.listsRemoveLeads]) {
      const { response, err } = await mesh.rpc(subject, A, request);
      expect(response).toBeUndefined();
      expect(err).toMatchObject({ code, param });
    }
    expect(await members(list.id)).toEqual([]);
  });

  it('a thousand lead ids, repeats counted once, are one change', async () => {
    const list = await call(SUBJECTS.crm.listsCreate, A, { name: 'Big' });
    const target = await lead(A, 'Repeated');
    expect(await call(SUBJECTS.crm.listsAddLeads, A, { list_id: list.id, lead_ids: Array(1000).fill(target.id) }))
      .toEqual({ ...list, member_count: 1, added: 1 });
  });

  it('the owner of a list is told to the admin CLI only', async () => {
    const list = await call(SUBJECTS.crm.listsCreate, B, { name: 'Owned' });
    expect(await call(SUBJECTS.crm.listsOwner, { ...A, workspace_id: '' }, { id: list.id })).toEqual({ workspace_id: 'ws_b' });
    const { err } = await mesh.rpc(SUBJECTS.crm.listsOwner, { ...A, workspace_id: '', key_id: 'key_api' }, { id: list.id });
    expect(err).toMatchObject({ code: 'not_found', param: 'list_id' });
  });

  it('a delete racing additions of its lead leaves no membership behind: each addition lands before it (and goes with the lead) or is not_found', async () => {
    for (let round = 0; round < 5; round++) {
      const lists = await Promise.all(Array.from({ length: 10 }, (_, i) => call(SUBJECTS.crm.listsCreate, A, { name: `raced ${round}.${i}` })));
      const target = await lead(A, `Raced ${round}`);
      const additions = lists.map((list) => mesh.rpc(SUBJECTS.crm.listsAddLeads, A, { list_id: list.id, lead_ids: [target.id] }));
      const deletion = mesh.rpc(SUBJECTS.crm.leadsDelete, A, { id: target.id });
      const outcomes = await Promise.all(additions);
      expect((await deletion).response).toEqual({ id: target.id, object: 'lead', deleted: true });
      for (const { response, err } of outcomes) {
        if (err) expect(err).toMatchObject({ code: 'not_found', param: 'lead_ids' });
        else expect(response).toMatchObject({ member_count: 1, added: 1 });
      }
      expect(await mesh.query('crm', 'SELECT list_id FROM list_members WHERE lead_id = $1', [target.id])).toEqual([]);
    }
  });
});
