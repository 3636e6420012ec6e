import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tools/mesh/processes';
import { TestMesh } from '../harness';

/**
 * examples/typed-client, as its README runs it: openapi-typescript generates the types from the
 * committed docs/openapi.json, tsc compiles the client (strict) against them and openapi-fetch,
 * and the compiled client creates, lists and reads leads on a real mesh.
 */
const DIR = join(ROOT, 'examples', 'typed-client');
const run = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env) => {
  const out = spawnSync(process.execPath, [command, ...args], { cwd: ROOT, env, encoding: 'utf8' });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
};

describe('examples/typed-client: generated from docs/openapi.json, compiled, run against the mesh', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    rmSync(join(DIR, 'dist'), { recursive: true, force: true });
    rmSync(join(DIR, 'api.d.ts'), { force: true });
    mesh = await TestMesh.start(['gateway', 'crm']);
  }, 120_000);
  afterAll(() => mesh?.close());

  it('generates the types, compiles with them, and the client creates, lists and reads a lead', async () => {
    const generated = run(join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), ['docs/openapi.json', '-o', join(DIR, 'api.d.ts')]);
    expect({ status: generated.status, stderr: generated.stderr.replace(/.*✨.*\n?/g, '') }).toMatchObject({ status: 0 });
    const compiled = run(join(ROOT, 'node_modules/typescript/bin/tsc'), ['-p', DIR]);
    expect({ status: compiled.status, output: compiled.stdout + compiled.stderr }).toEqual({ status: 0, output: '' });

    const { key } = await mesh.workspace();
    const client = run(join(DIR, 'dist/client.js'), [], { ...process.env, LIM_API_URL: mesh.baseUrl, LIM_API_KEY: key });
    expect({ status: client.status, stderr: client.stderr }).toEqual({ status: 0, stderr: '' });
    const out = JSON.parse(client.stdout);
    expect(out.created).toEqual({ id: expect.stringMatching(/^lead_/), status: 201, email: 'ada@analytical.test' });
    expect(out.listed.ids).toContain(out.created.id);
    expect(out.fetched).toEqual({ id: out.created.id, full_name: 'Ada Lovelace', company_name: 'Analytical Engines' });
    expect(out.missing).toEqual({ status: 404, code: 'not_found' });
  }, 90_000);

  it('the types reject what the document does not have: an unknown path and a wrong field type are compile errors', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--types', 'node', '--lib', 'ES2023,DOM', join(DIR, 'wrong-types.check.ts')], { cwd: ROOT, encoding: 'utf8' });
    expect(check.status).not.toBe(0);
    const errors = check.stdout.trim().split('\n');
    expect(errors).toEqual([expect.stringMatching(/^\S*wrong-types\.check\.ts\(6,\d+\): error TS/), expect.stringMatching(/^\S*wrong-types\.check\.ts\(7,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/)]);
  });
});
