import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CORPUS_SIZE, DemoSandbox, startDemoSandbox } from '../../../tools/mesh/demo-sandbox';
import { freePort, ROOT } from '../../../tools/mesh/processes';
import { longTestMs, meshHookTimeoutMs, TestMesh } from '../../harness';
import { commandsOf, missingLines, shapeDifferences, shellBlocks, ShellBlock } from '../../support/doc-blocks';

/**
 * docs/quickstart.md as a reader runs it: every `bash` block, in order, in one bash (the variables
 * of one block are there in the next), against a mesh this test starts as `npm start` does (all
 * six services, the demo mail sandbox, the demo corpus, and the settings the quickstart's start
 * block gives). The one block the test does not run is that start block, `npm ci` and `npm start`
 * (marked in the document): the test checks its text names the settings it starts the mesh with.
 * The output the document shows under a block is compared with the block's output by shape
 * (test/support/doc-blocks.ts): the last line for JSON, the lines (IDs and times made generic)
 * for text. The test's own addresses replace the defaults through the variables the quickstart
 * reads (`API`, `QS`, `HOOK_PORT`, `LISTEN_PORT`); a text output has the test's receiver port mapped back to 8443.
 *
 * QUICKSTART_RECORD=1 writes each block's actual output to /tmp/quickstart-outputs.txt.
 */
const DOC = join(ROOT, 'docs', 'quickstart.md');
const MARK = '@@quickstart-block@@';

describe('docs/quickstart.md, run against a mesh', () => {
  const blocks = shellBlocks(readFileSync(DOC, 'utf8'));
  const start = blocks.find((b) => b.note);
  const runnable = blocks.filter((b) => b !== start);
  let sandbox: DemoSandbox;
  let mesh: TestMesh;
  let qs: string;
  let hookPort: number;

  const startAt = blocks.indexOf(start!);
  const env = { API: '', QS: '', HOOK_PORT: '', LISTEN_PORT: '' };
  let first: BlockOutput[] = [];

  beforeAll(async () => {
    qs = mkdtempSync(join(tmpdir(), 'quickstart-'));
    hookPort = await freePort();
    Object.assign(env, { QS: qs, HOOK_PORT: String(hookPort), LISTEN_PORT: String(await freePort()) });
    sandbox = (await startDemoSandbox({}, () => undefined))!;
    // the blocks before the start block (the certificate), then the mesh as the start block has it
    first = await runBlocks(blocks.slice(0, startAt), { ...process.env, ...env });
    mesh = await TestMesh.start(['gateway'], {
      ...sandbox.env, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: join(qs, 'cert.pem'),
    });
    // one after the other: six services migrating at once can outlast the harness's start-up wait on a busy machine
    for (const name of ['crm', 'billing', 'search', 'sequences', 'webhooks'] as const) await mesh.startApp(name);
    // as npm start seeds it (tools/mesh/start.ts)
    expect(await mesh.admin('search:seed', '--count', String(DEMO_CORPUS_SIZE), '--if-empty', 'true')).toMatchObject({ inserted: expect.any(Number) });
    env.API = mesh.baseUrl;
  }, meshHookTimeoutMs(6)); // six apps, one after the other, and the demo corpus
  afterAll(async () => {
    await mesh?.close();
    await sandbox?.close();
    rmSync(qs, { recursive: true, force: true });
  });

  it('has shell blocks with outputs, and one start block the test stands in for', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(8);
    expect(runnable.filter((b) => b.expected).length).toBeGreaterThanOrEqual(7);
    expect(start?.code.split('\n')).toEqual(['npm ci', 'WEBHOOK_ALLOWED_HOSTS=127.0.0.1 NODE_EXTRA_CA_CERTS=.data/quickstart/cert.pem npm start']);
  });

  it('every block runs, and prints what the document shows', async () => {
    expect(readFileSync(join(qs, 'cert.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');
    const rest = await runBlocks(blocks.slice(startAt + 1), { ...process.env, ...mesh.env, ...env });
    const outputs = [...first, ...rest];
    if (process.env.QUICKSTART_RECORD === '1') {
      writeFileSync('/tmp/quickstart-outputs.txt', outputs.map((o) => `--- line ${o.block.line} (exit ${o.code})\n${o.stdout}\n${o.stderr ? `stderr: ${o.stderr}\n` : ''}`).join('\n'));
    }
    for (const { block, stdout, stderr, code } of outputs) {
      expect({ line: block.line, code, stderr }).toEqual({ line: block.line, code: 0, stderr: '' });
      if (!block.expected) continue;
      if (block.expected.lang === 'json') {
        const last = stdout.trim().split('\n').pop() ?? '';
        let actual: unknown;
        try {
          actual = JSON.parse(last);
        } catch {
          actual = `not JSON: ${last}`;
        }
        expect({ line: block.line, differences: shapeDifferences(JSON.parse(block.expected.text), actual) }).toEqual({ line: block.line, differences: [] });
      } else {
        const mapped = stdout.split(String(hookPort)).join('8443');
        expect({ line: block.line, missing: missingLines(block.expected.text, mapped) }).toEqual({ line: block.line, missing: [] });
      }
    }
  }, longTestMs(300_000));

  it("the README's demo reveal table is what this mesh answers: the first six hits of page 1 of each lens, revealed one after the other", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const count = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    const kinds = (text: string) => ({
      valid: count(text, /(\d+) `revealed` `valid`/),
      catch_all: count(text, /(\d+) `revealed` `catch_all`/),
      phone_only: count(text, /(\d+) `revealed` with a phone only/),
      no_contact_found: count(text, /(\d+) `no_contact_found`/),
    });
    const rows = Object.fromEntries(['leads', 'investors', 'researchers', 'grants'].map((lens) => {
      const row = new RegExp(`^\\| ${lens} \\|(.*)\\|$`, 'm').exec(readme);
      expect({ lens, row: Boolean(row) }).toEqual({ lens, row: true });
      return [lens, kinds(row![1])];
    }));
    const total = /In all, (\d+) `valid`, (\d+) `catch_all`, (\d+) with a phone only and (\d+) `no_contact_found`: (\d+) reveals\s+charged, (\d+) refunded/.exec(readme);
    expect(total).not.toBeNull();

    const workspace = await mesh.createWorkspace({ name: 'readme-table', planCredits: 1000 });
    const key = (await mesh.key(workspace.id, 'live')).key as string;
    const seen: Record<string, Record<string, number>> = {};
    let charged = 0;
    let refunded = 0;
    for (const lens of Object.keys(rows)) {
      const page = await mesh.request('GET', `/search?lens=${lens}`, { key });
      expect(page.status).toBe(200);
      seen[lens] = { valid: 0, catch_all: 0, phone_only: 0, no_contact_found: 0 };
      for (const hit of page.body.data.slice(0, 6)) {
        const reveal = await mesh.request('POST', '/reveals', { key, body: { entity_id: hit.entity_id } });
        expect([200, 201]).toContain(reveal.status); // 201 a reveal made now, 200 one made before
        const r = reveal.body;
        const kind = r.status === 'no_contact_found' ? 'no_contact_found' : r.email === null && r.phone ? 'phone_only' : r.email_status;
        seen[lens][kind] = (seen[lens][kind] ?? 0) + 1;
        if (r.credits_charged === 1) charged += 1;
        else refunded += 1;
      }
    }
    expect(seen).toEqual(rows);
    const sum = (kind: string) => Object.values(seen).reduce((n, s) => n + (s[kind] ?? 0), 0);
    expect([sum('valid'), sum('catch_all'), sum('phone_only'), sum('no_contact_found'), charged, refunded]).toEqual(total!.slice(1, 7).map(Number));
  });

  it("the README's commands (a workspace, keys, a lead, credits, a search, a reveal) run as written, their placeholders filled as they are learned", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = shellBlocks(readme).filter((b) => b.code.includes('npm run -s admin --') && !b.code.includes('npm start'));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const learned = new Map<string, string>();
    const fill = (line: string) => [...learned].reduce((text, [placeholder, value]) => text.split(placeholder).join(value), line.split('http://127.0.0.1:3000/api/v1').join(mesh.baseUrl));
    let ran = 0;
    for (const block of blocks) {
      for (const command of commandsOf(block.code)) {
        const line = fill(command.line);
        expect({ command: command.line, unfilled: /[a-z]_…/.test(line) }).toEqual({ command: command.line, unfilled: false });
        const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          execFile('bash', ['-c', line], { cwd: ROOT, env: { ...process.env, ...mesh.env } }, (err, out, errOut) => resolve({ code: err ? 1 : 0, stdout: out, stderr: errOut }));
        });
        expect({ command: command.line, code, stderr }).toEqual({ command: command.line, code: 0, stderr: '' });
        const out = JSON.parse(stdout);
        ran += 1;
        // what later commands name with a placeholder
        if (typeof out.id === 'string' && out.id.startsWith('ws_')) learned.set('ws_…', out.id);
        if (typeof out.key === 'string') learned.set(out.key.startsWith('svc_live_') ? 'svc_live_…' : 'svc_test_…', out.key);
        if (Array.isArray(out.data) && out.data[0]?.entity_id) learned.set('ent_…', out.data[0].entity_id);
        if (command.comment?.startsWith('{')) {
          const shown = JSON.parse(command.comment.replace(/,…\}$/, '}'));
          expect({ command: command.line, differences: shapeDifferences(shown, out) }).toEqual({ command: command.line, differences: [] });
        }
        const hits = /^(\d+) masked hits/.exec(command.comment ?? '');
        if (hits) expect(out.data.filter((h: any) => h.email_masked !== undefined && h.revealed === false)).toHaveLength(Number(hits[1]));
      }
    }
    expect(ran).toBeGreaterThanOrEqual(7);
    expect([...learned.keys()].sort()).toEqual(['ent_…', 'svc_live_…', 'svc_test_…', 'ws_…']);
  });
});

interface BlockOutput { block: ShellBlock; stdout: string; stderr: string; code: number }

/**
 * The blocks in one bash, a marker printed after each (so every block's output is its own), in
 * the repository's root as a reader's shell; the exit status of each block is kept. The bash
 * gets a process group of its own, killed at the end with what a block left in the background.
 */
async function runBlocks(blocks: ShellBlock[], env: NodeJS.ProcessEnv): Promise<BlockOutput[]> {
  if (blocks.length === 0) return [];
  const script = blocks.map((b, i) => `${b.code}\n__status=$?\nprintf '\\n${MARK} ${i} %s\\n' "$__status"; printf '\\n${MARK} ${i}\\n' >&2\n`).join('\n');
  const child = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), longTestMs(240_000));
  await new Promise<void>((resolve) => child.once('close', () => resolve()));
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // nothing of it left
  }
  const outParts = stdout.split(new RegExp(`\\n${MARK} (\\d+) (\\d+)\\n`));
  const errParts = stderr.split(new RegExp(`\\n${MARK} \\d+\\n`));
  return blocks.map((block, i) => {
    const code = outParts[i * 3 + 2] === undefined ? -1 : Number(outParts[i * 3 + 2]);
    return { block, stdout: outParts[i * 3] ?? '', stderr: (errParts[i] ?? '').trim(), code };
  });
}
