import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tools/mesh/processes';
import { meshHookTimeoutMs, TestMesh } from '../harness';

/**
 * packages/client as an integrator builds it: its own tsconfig (strict, declarations) compiles
 * it with tsc to packages/client/dist, and the compiled package, loaded by its package.json's
 * `main`, creates, replays, pages through and misses leads on a real mesh.
 */
const DIR = join(ROOT, 'packages', 'client');

describe('packages/client: built by its own tsconfig, run against the mesh', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    rmSync(join(DIR, 'dist'), { recursive: true, force: true });
    mesh = await TestMesh.shared(['gateway', 'crm']);
  }, meshHookTimeoutMs(2));
  afterAll(() => mesh?.close());

  it('builds (tsc -p packages/client: strict, declarations beside the JavaScript)', () => {
    const compiled = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', DIR], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: compiled.status, output: compiled.stdout + compiled.stderr }).toEqual({ status: 0, output: '' });
    // the package's build script copies the generated types next to the declarations that import them
    copyFileSync(join(DIR, 'src', 'api.d.ts'), join(DIR, 'dist', 'api.d.ts'));
    for (const file of ['index.js', 'index.d.ts', 'signature.js', 'api.d.ts']) expect({ file, built: existsSync(join(DIR, 'dist', file)) }).toEqual({ file, built: true });
  });

  it('the built package creates a lead, replays a POST by its Idempotency-Key, pages through leads, and answers a typed 404', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { LeadIntelClient, ApiError } = require(DIR) as typeof import('../../packages/client/src');
    const { key } = await mesh.workspace();
    const client = new LeadIntelClient({ apiKey: key, baseUrl: mesh.baseUrl });

    const created = await client.api.POST('/leads', { body: { full_name: 'Ada Lovelace', email: 'ada@analytical.test', company_name: 'Analytical Engines' } });
    expect({ status: created.response.status, id: created.data?.id }).toEqual({ status: 201, id: expect.stringMatching(/^lead_/) });
    expect(created.response.headers.get('Idempotent-Replayed')).toBeNull();

    const once = { body: { full_name: 'Grace Hopper', email: 'grace@cobol.test' }, params: { header: { 'Idempotency-Key': `client-e2e-${Date.now()}` } } };
    const first = await client.api.POST('/leads', once);
    const again = await client.api.POST('/leads', once);
    expect(again.response.status).toBe(201);
    expect(again.data?.id).toBe(first.data?.id);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');

    for (let i = 0; i < 3; i += 1) await client.api.POST('/leads', { body: { full_name: `Lead ${i}`, email: `lead${i}@pages.test` } });
    const ids: string[] = [];
    let pages = 0;
    for await (const page of client.pages('/leads', { query: { limit: 2 } })) {
      pages += 1;
      for (const lead of page.data) ids.push(lead.id);
    }
    expect(pages).toBe(3);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    const walked: string[] = [];
    for await (const lead of client.paginate('/leads', { query: { limit: 2 } })) walked.push(lead.id);
    expect(walked).toEqual(ids);

    const missing = await client.api.GET('/leads/{id}', { params: { path: { id: 'lead_doesnotexist' } } });
    expect({ status: missing.response.status, code: missing.error?.error.code }).toEqual({ status: 404, code: 'not_found' });
    const walkMissing = async () => { for await (const d of client.paginate('/webhook_endpoints/{id}/deliveries', { path: { id: 'we_doesnotexist' } })) void d; };
    await expect(walkMissing()).rejects.toBeInstanceOf(ApiError);
  });
});
