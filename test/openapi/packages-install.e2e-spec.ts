import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, runToEnd, waitFor } from '../../tools/mesh/processes';
import { packPackages, stagedPackages } from '../../tools/packages/stage';
import { HARNESS, SHARED_ALL_SETTINGS, SHARED_ALL_START_MS, TestMesh } from '../harness';
import { Running, startExampleReceiver } from '../support/running';
import { allowance } from '../support/timing';

/**
 * Issue 38: packages/client and packages/cli as an integrator gets them: `npm pack` tarballs
 * (tools/packages/stage.ts), installed together into an empty folder by `npm install <tgz> <tgz>
 * --offline` with an empty npm cache (nothing comes from a registry: the client's one dependency
 * travels inside its tarball), then used from that folder against a mesh: a typed call (checked
 * by tsc as an integrator's ESM and CommonJS code would be), pagination, a signature check, and
 * `lim listen` through node_modules/.bin/lim forwarding to the example receiver.
 */
const STREAM_POLL_MS = Number(SHARED_ALL_SETTINGS.EVENTS_STREAM_POLL_MS);

describe('the client and the cli packages, installed from their tarballs', () => {
  let work: string;
  let app: string;
  let tarballs: { client: string; cli: string };
  let mesh: TestMesh;
  const started: Running[] = [];

  const sh = (command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
    spawnSync(command, args, { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8' });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'lim-install-'));
    // the staging lim-cli or the quickstart made of these sources, if either ran before (tools/packages/stage.ts)
    tarballs = await packPackages((await stagedPackages()).packages, join(work, 'tarballs'));
    // EVENTS_STREAM_POLL_MS=200 in SHARED_ALL_SETTINGS: lim listen reads GET /events/stream
    mesh = await TestMesh.sharedAll();
  }, SHARED_ALL_START_MS + HARNESS.testTimeoutMs); // and the packing, within jest's own bound
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    await mesh?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('npm pack made two tarballs: the client with its declarations, exports and bundled dependency; the cli with its lim bin', () => {
    const list = (tgz: string) => sh('tar', ['-tzf', tgz], { cwd: work }).stdout.split('\n').filter(Boolean);
    const client = list(tarballs.client);
    for (const file of ['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/api.d.ts', 'package/dist/event-stream.js', 'package/node_modules/openapi-fetch/package.json']) {
      expect({ file, packed: client.includes(file) }).toEqual({ file, packed: true });
    }
    expect(client.filter((f) => f.includes('/src/') && !f.includes('node_modules'))).toEqual([]);
    const cli = list(tarballs.cli);
    for (const file of ['package/package.json', 'package/README.md', 'package/dist/main.js', 'package/dist/listen.js']) {
      expect({ file, packed: cli.includes(file) }).toEqual({ file, packed: true });
    }
    const manifest = (tgz: string) => JSON.parse(sh('tar', ['-xOzf', tgz, 'package/package.json'], { cwd: work }).stdout);
    expect(manifest(tarballs.client)).toMatchObject({
      name: '@lead-intelligence/client', version: expect.stringMatching(/^\d+\.\d+\.\d+$/), types: './dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js', require: './dist/index.js' } },
      bundleDependencies: ['openapi-fetch'],
    });
    expect(manifest(tarballs.cli)).toMatchObject({ name: '@lead-intelligence/cli', bin: { lim: 'dist/main.js' }, dependencies: { '@lead-intelligence/client': manifest(tarballs.client).version } });
  });

  it('installs into an empty folder offline, from an empty npm cache, in one npm install of both tarballs', () => {
    app = join(work, 'app');
    mkdirSync(app);
    const install = sh('npm', ['install', tarballs.client, tarballs.cli, '--offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env: { PATH: process.env.PATH, HOME: work, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' },
    });
    expect({ status: install.status, stderr: install.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(existsSync(join(app, 'node_modules', '.bin', 'lim'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', '@lead-intelligence', 'client', 'node_modules', 'openapi-fetch'))).toBe(true);
    const lim = sh(join(app, 'node_modules', '.bin', 'lim'), ['--version'], { cwd: app });
    expect({ status: lim.status, out: lim.stdout.trim() }).toEqual({ status: 0, out: '0.1.0' });
    expect(Object.keys(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).dependencies).sort()).toEqual(['@lead-intelligence/cli', '@lead-intelligence/client']);
  });

  it('an integrator\'s TypeScript typechecks against the installed types, as ES module and as CommonJS; a field the API lacks does not', async () => {
    const call = `const client = new LeadIntelClient({ apiKey: 'svc_test_x' });
export async function run() {
  const { data } = await client.api.GET('/leads/{id}', { params: { path: { id: 'lead_x' } } });
  const name: string | null | undefined = data?.full_name;
  for await (const event of await client.eventStream({ types: ['lead.created'] })) console.log(event.id, name);
  return verifySignature('{}', 't=1,v1=00', 'whsec_x').ok;
}
`;
    writeFileSync(join(app, 'typed.mts'), `import { LeadIntelClient, verifySignature } from '@lead-intelligence/client';\n${call}`);
    writeFileSync(join(app, 'typed.cts'), `import { LeadIntelClient, verifySignature } from '@lead-intelligence/client';\n${call}`);
    writeFileSync(join(app, 'wrong.mts'), `import { LeadIntelClient } from '@lead-intelligence/client';\nfor await (const lead of new LeadIntelClient({ apiKey: 'k' }).paginate('/leads')) void lead.no_such_field;\n`);
    const tsc = (files: string[]) => runToEnd(process.execPath, [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'ES2022',
      '--lib', 'ES2023,DOM', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), ...files,
    ], { cwd: app });
    // two compilers at once: each is one process mostly on one core
    const [typed, wrong] = await Promise.all([tsc(['typed.mts', 'typed.cts']), tsc(['wrong.mts'])]);
    expect({ status: typed.status, out: typed.stdout }).toEqual({ status: 0, out: '' });
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.mts.*Property 'no_such_field' does not exist/);
  });

  it('from the installed folder, as require and as import: a typed call, pagination, a typed error, and a signature check', async () => {
    const { key } = await mesh.workspace();
    const script = (load: string) => `${load}
(async () => {
  const client = new LeadIntelClient({ apiKey: process.env.KEY, baseUrl: process.env.BASE });
  const created = [];
  for (const name of ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']) created.push((await client.api.POST('/leads', { body: { full_name: name } })).data.id);
  const walked = [];
  for await (const lead of client.paginate('/leads', { query: { limit: 2 } })) walked.push(lead.id);
  let missing;
  try { for await (const d of client.paginate('/webhook_endpoints/{id}/deliveries', { path: { id: 'we_missing' } })) void d; } catch (err) { missing = [err instanceof ApiError, err.status, err.code]; }
  const secret = newSigningSecret();
  const body = JSON.stringify({ id: 'evt_1', object: 'event' });
  const signed = verifySignature(body, signatureHeader(secret, body), secret).ok;
  const tampered = verifySignature(body + ' ', signatureHeader(secret, body), secret).ok;
  console.log(JSON.stringify({ created, walked, missing, signed, tampered }));
})().catch((err) => { console.error(err); process.exit(1); });
`;
    writeFileSync(join(app, 'run.cjs'), script(`const { LeadIntelClient, ApiError, newSigningSecret, signatureHeader, verifySignature } = require('@lead-intelligence/client');`));
    writeFileSync(join(app, 'run.mjs'), script(`import { LeadIntelClient, ApiError, newSigningSecret, signatureHeader, verifySignature } from '@lead-intelligence/client';`));
    const run = (file: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [file], { cwd: app, env: { PATH: process.env.PATH, KEY: key, BASE: mesh.baseUrl } }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout, stderr }));
    });
    const cjs = await run('run.cjs');
    expect({ code: cjs.code, stderr: cjs.stderr }).toEqual({ code: 0, stderr: '' });
    const first = JSON.parse(cjs.stdout);
    expect(first.created).toHaveLength(3);
    expect([...first.walked].sort()).toEqual([...first.created].sort());
    expect(first).toMatchObject({ missing: [true, 404, 'not_found'], signed: true, tampered: false });
    const esm = await run('run.mjs');
    expect({ code: esm.code, stderr: esm.stderr }).toEqual({ code: 0, stderr: '' });
    const second = JSON.parse(esm.stdout);
    expect(second.walked).toHaveLength(6);
    expect(second).toMatchObject({ missing: [true, 404, 'not_found'], signed: true, tampered: false });
  });

  it('node_modules/.bin/lim listen forwards the workspace\'s events to the example receiver, which verifies them', async () => {
    const { key } = await mesh.workspace();
    const port = await freePort();
    const listener = new Running(spawn(join(app, 'node_modules', '.bin', 'lim'), ['listen', '--forward-to', `http://127.0.0.1:${port}/hooks`], {
      cwd: app, env: { PATH: process.env.PATH, LIM_API_KEY: key, LIM_API_BASE: mesh.baseUrl },
    }));
    started.push(listener);
    await waitFor('the listener ready', async () => listener.lines.length >= 1, HARNESS.readyTimeoutMs, 50);
    const { secret } = listener.json()[0];
    const receiver = await startExampleReceiver(port, secret, started);
    const lead = await mesh.request('POST', '/leads', { key, body: { full_name: 'Edsger Dijkstra' } });
    expect(lead.status).toBe(201);
    // the stream's poll, then the event's way (crm's outbox, the bus, the webhooks service storing it)
    // and its transaction final: a write transaction anywhere on the PostgreSQL server delays it
    // for as long as it runs (docs/decisions.md, "GET /events/stream"), so a suite beside this one
    // on the same server can hold it back for seconds; the allowance is the harness's
    await waitFor('forwarded and verified', async () => receiver.lines.some((l) => l.includes(` lead.created evt_`) && l.endsWith(lead.body.id)),
      STREAM_POLL_MS + allowance(30_000), 50);
    // lim prints its line once the receiver's answer is back, which can be read after the receiver's own line
    await waitFor('lim printed the delivery', async () => listener.lines.length >= 2, allowance(15_000), 50);
    expect(listener.json()[1]).toEqual({ event_id: expect.stringMatching(/^evt_/), type: 'lead.created', livemode: true, status: 200, latency_ms: expect.any(Number) });
    expect(await listener.stop()).toBe(0);
  });
});
