import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoSandbox, startDemoSandbox } from '../../tools/mesh/demo-sandbox';
import { waitFor } from '../../tools/mesh/processes';
import { longTestMs, meshHookTimeoutMs, TestMesh } from '../harness';
import { SmtpSink } from '../support/smtp-sink';
import { allowance } from '../support/timing';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const newman = require('newman') as { run: (options: Record<string, unknown>, done: (err: Error | null, summary: NewmanSummary) => void) => void };

interface NewmanExecution {
  item: { id: string; name: string };
  response?: { code: number };
  requestError?: { message: string };
  assertions?: { assertion: string; error?: { message: string } }[];
}
interface NewmanSummary {
  run: { executions: NewmanExecution[]; failures: { source?: { id?: string }; error: { message: string } }[] };
}

/**
 * The Postman collection the gateway serves (docs/postman_collection.json), run as a whole by
 * Newman (Postman's runner, through its library API) against a mesh as `npm start` runs it (its
 * demo mail sandbox for search's verifier, a mail server for the opt-out portal, webhooks to
 * public addresses only), with only `baseUrl` and `apiKey` (a live key) set. The workspace has what only the operator makes: a sequence (with its mailbox),
 * and the demo corpus `npm start` seeds into the search index.
 */
describe('the Postman collection, run by Newman', () => {
  let mesh: TestMesh;
  let sink: SmtpSink;
  let sandbox: DemoSandbox;

  /**
   * What a run cannot hold: links that arrive only by email (the unsubscribe link of a sequence's
   * email, the opt-out portal's confirmation link) and an export's signed download link, which
   * are the recorded ones; and the event stream, which never ends (cut by the request timeout).
   */
  const EXCEPTED = new Set(['unsubscribe_show', 'unsubscribe_unsubscribe', 'optout_confirmPage', 'optout_confirm', 'exports_download', 'events_stream']);

  beforeAll(async () => {
    sink = await SmtpSink.start();
    sandbox = (await startDemoSandbox({}, () => undefined))!;
    mesh = await TestMesh.start(['gateway', 'crm'], { ...sandbox.env, OPTOUT_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, WEBHOOK_SECRET_KEY: 'a'.repeat(64) });
    for (const name of ['billing', 'search', 'sequences', 'webhooks'] as const) await mesh.startApp(name);
  }, meshHookTimeoutMs(6)); // six apps, one after the other
  afterAll(async () => {
    await mesh?.close();
    await sink?.close();
    await sandbox?.close();
  });

  it('answers every request in order with no 400, 404 or 5xx, each create setting the ids later requests use', async () => {
    const workspace = await mesh.createWorkspace({ name: 'Postman run', planCredits: 100 });
    // a live key: a test key's enrollments are checked, not written, so there is none to remove
    const key = (await mesh.key(workspace.id, 'live')).key as string;
    const mailbox = await mesh.admin('mailbox:create', '--workspace', workspace.id, '--email', 'sales@acme.test', '--smtp-url', `smtp://127.0.0.1:${sink.port}`);
    const file = join(mkdtempSync(join(tmpdir(), 'postman-run-')), 'sequence.json');
    writeFileSync(file, JSON.stringify({ name: 'Pilot outreach', mailbox_ids: [mailbox.id], steps: [{ type: 'email', subject: 'Hi', body: 'Hi {{first_name|there}} {{unsubscribe_url}}' }] }));
    await mesh.admin('sequence:create', '--workspace', workspace.id, '--file', file);
    // the demo corpus npm start seeds (its first 400 entities), where the recorded search finds its investor
    expect(await mesh.admin('search:seed', '--count', '400')).toMatchObject({ inserted: 400 });
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(30_000));

    const collection = (await (await fetch(`${mesh.baseUrl}/postman_collection.json`)).json()) as { item: { item: { id: string }[] }[] };
    const summary = await new Promise<NewmanSummary>((resolve, reject) =>
      newman.run({
        collection,
        envVar: [{ key: 'baseUrl', value: mesh.baseUrl }, { key: 'apiKey', value: key }],
        timeoutRequest: 5000,
        reporters: [],
      }, (err, result) => (err ? reject(err) : resolve(result))),
    );

    const requests = collection.item.flatMap((folder) => folder.item.map((item) => item.id));
    const ran = summary.run.executions.map((e) => e.item.id);
    // each request once, the first of the collection first (the test scripts chain the rest)
    expect([...ran].sort()).toEqual([...requests].sort());
    expect(ran[0]).toBe(requests[0]);

    const answers = summary.run.executions.map((e) => ({ id: e.item.id, status: e.response?.code ?? e.requestError?.message }));
    const refused = answers.filter(({ id, status }) => !EXCEPTED.has(id) && (typeof status !== 'number' || status === 400 || status === 404 || status >= 500));
    expect(refused).toEqual([]);
    const failedChecks = summary.run.executions.filter((e) => !EXCEPTED.has(e.item.id)).flatMap((e) =>
      (e.assertions ?? []).filter((a) => a.error).map((a) => ({ id: e.item.id, check: a.assertion, error: a.error!.message })));
    expect(failedChecks).toEqual([]);
  }, longTestMs(300_000));
});
