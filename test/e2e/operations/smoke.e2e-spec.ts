import { TestMesh } from '../../harness';

describe('mesh smoke', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
  });
  afterAll(() => mesh?.close());

  it('creates and reads a lead through the gateway', async () => {
    const { key } = await mesh.workspace();
    const created = await mesh.request('POST', '/leads', { key, body: { full_name: 'Acme Fund' } });
    expect(created.status).toBe(201);
    const read = await mesh.request('GET', `/leads/${created.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.full_name).toBe('Acme Fund');
  });
});
