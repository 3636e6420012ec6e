import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SAMPLE_BASE_URL, SAMPLE_KEY_VARIABLE } from '../../apps/gateway/src/openapi/code-samples';
import { RECORDED_EXAMPLES, RecordedExample, RecordedExamples } from '../../apps/gateway/src/openapi/examples';
import { ROOT, waitFor } from '../../tools/mesh/processes';
import { longTestMs, meshHookTimeoutMs, TestMesh } from '../harness';
import { eventually, SmtpSink } from '../support/smtp-sink';
import { SseClient } from '../support/sse';
import { allowance } from '../support/timing';

/**
 * The request and response examples of the OpenAPI document come from this run: it calls every
 * operation once against a real mesh (all six services, an SMTP sink for the sequence and opt-out
 * mails) and records what was sent and answered. With OPENAPI_EXAMPLES_WRITE=1 it writes them to
 * apps/gateway/src/openapi/examples.json (`npm run openapi:examples`), which the generator puts in
 * the document; otherwise it checks that every operation of the served document has examples,
 * that they validate against the operation's schemas, and that this run's answers do too, and it
 * sends each operation's first request by running the operation's curl sample (`x-codeSamples`,
 * made from the committed example) with this run's key and ids: each answers its recorded status.
 *
 * The two documentation routes (tag `docs`: the document itself and the page rendering it) have
 * no example: the example of the document would be the document.
 */
const EXAMPLES_FILE = join(ROOT, 'apps', 'gateway', 'src', 'openapi', 'examples.json');
const WRITE = process.env.OPENAPI_EXAMPLES_WRITE === '1';
/** What a shell command printed on stdout (curl exits non-zero when cut by --max-time; what it printed counts). */
const shell = (command: string, env: Record<string, string>) =>
  new Promise<string>((resolve) => execFile('sh', ['-c', command], { env: { PATH: process.env.PATH, ...env }, timeout: allowance(30_000) }, (_err, stdout) => resolve(String(stdout))));
/** An object id: a type prefix, then 24 characters (libs/platform/src/ids.ts). */
const ID = /^[a-z]+_[0-9A-Za-z]{24}$/;

describe('OpenAPI examples: every operation called once, recorded, and valid against its schemas', () => {
  let mesh: TestMesh;
  let sink: SmtpSink;
  let doc: any;
  const recorded: RecordedExamples = {};
  const curlDir = mkdtempSync(join(tmpdir(), 'openapi-curl-'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  beforeAll(async () => {
    sink = await SmtpSink.start();
    mesh = await TestMesh.start(['gateway', 'crm'], {
      SEQUENCES_TICK_MS: '100',
      OPTOUT_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      OPTOUT_FROM: 'optout@platform.test',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      WEBHOOK_SECRET_KEY: 'a'.repeat(64),
    });
    // one after the other: five services migrating at once can outlast the harness's start-up wait on a busy machine
    for (const name of ['billing', 'search', 'sequences', 'webhooks'] as const) await mesh.startApp(name);
    doc = await (await fetch(`${mesh.baseUrl}/openapi.json`)).json();
  }, meshHookTimeoutMs(6)); // six apps, one after the other
  afterAll(async () => {
    await mesh?.close();
    await sink?.close();
  });

  /** Links in mails and export URLs name PUBLIC_API_URL: the same path on this mesh's gateway. */
  const local = (url: string) => `${mesh.baseUrl}${new URL(url).pathname.replace(/^\/api\/v1/, '')}${new URL(url).search}`;

  /**
   * One request through the gateway, recorded under its operation when it succeeds: the first
   * success is the operation's example, or the last with `replace` (a polled export, completed).
   */
  async function call(method: string, template: string, path: string, options: { key?: string; body?: unknown; form?: Record<string, string>; replace?: boolean } = {}) {
    const headers: Record<string, string> = {};
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const operation = `${method} ${template}`;
    const res = !WRITE && !recorded[operation]
      ? await runCurlSample(operation, path, options.key, options.form ?? options.body)
      : await fetch(`${mesh.baseUrl}${path}`, { method, headers, body }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() }));
    const type = res.type.split(';')[0].trim();
    const text = res.text;
    const parsed = type === 'application/json' && text ? JSON.parse(text) : text;
    expect({ method, path, status: res.status < 300 ? 'success' : res.status, body: res.status < 300 ? undefined : parsed }).toEqual({ method, path, status: 'success', body: undefined });
    if (recorded[`${method} ${template}`] && !options.replace) return { status: res.status, body: parsed as any };
    recorded[`${method} ${template}`] = {
      request: { path, ...(options.form ? { body: options.form } : options.body !== undefined ? { body: options.body } : {}) },
      response: { status: res.status, type, body: parsed },
    };
    return { status: res.status, body: parsed as any };
  }

  /**
   * The operation's curl sample as the document prints it (`x-codeSamples`), run by a shell with
   * the key in LIM_API_KEY, against this mesh and with this run's ids: the committed example's
   * URL is replaced by this run's (its body must be this run's already: else the examples are
   * stale, `npm run openapi:examples`). It must answer the committed example's status.
   */
  async function runCurlSample(operation: string, path: string, apiKey: string | undefined, body: unknown, extra = ''): Promise<{ status: number; type: string; text: string }> {
    const [method, template] = operation.split(' ');
    const committed = RECORDED_EXAMPLES[operation];
    expect({ operation, committed: Boolean(committed) }).toEqual({ operation, committed: true });
    // the same body but for the ids this run's objects have
    const ids = new Map<string, string>();
    const sameBody = (was: unknown, now: unknown): unknown => {
      if (typeof was === 'string' && typeof now === 'string' && ID.test(was) && ID.test(now) && was.split('_')[0] === now.split('_')[0]) return ids.set(was, now) && now;
      if (Array.isArray(was) && Array.isArray(now)) return was.map((item, i) => sameBody(item, now[i]));
      if (was && now && typeof was === 'object' && typeof now === 'object') return Object.fromEntries(Object.entries(was).map(([k, v]) => [k, sameBody(v, (now as Record<string, unknown>)[k])]));
      return was;
    };
    expect({ operation, body: sameBody(committed.request.body, body) }).toEqual({ operation, body });
    let sample = doc.paths[template][method.toLowerCase()]['x-codeSamples'].find((s: any) => s.label === 'curl').source as string;
    const url = `'${SAMPLE_BASE_URL}${committed.request.path}'`;
    expect({ operation, printsItsUrl: sample.includes(url) }).toEqual({ operation, printsItsUrl: true });
    sample = sample.replace(url, `'${mesh.baseUrl}${path}'`);
    for (const [was, now] of ids) sample = sample.split(was).join(now);
    const out = join(curlDir, 'body');
    // not spawnSync: the SMTP sink answering the portal's mail runs in this process
    const run = await shell(`${sample} ${extra} -s -o '${out}' -w '%{http_code} %{content_type}'`, { [SAMPLE_KEY_VARIABLE]: apiKey ?? '' });
    const [status, type = ''] = run.split(' ');
    expect({ operation, status: Number(status) }).toEqual({ operation, status: committed.response.status });
    return { status: Number(status), type, text: readFileSync(out, 'utf8') };
  }

  /**
   * A Server-Sent Events stream, recorded as its text up to the end of its first event (then
   * closed: the stream itself never ends).
   */
  async function callStream(template: string, path: string, options: { key: string; lastEventId: string }) {
    const { stream, refused } = await SseClient.open(`${mesh.baseUrl}${path}`, { authorization: `Bearer ${options.key}`, 'last-event-id': options.lastEventId });
    expect({ path, refused: refused && { status: refused.status, body: refused.body } }).toEqual({ path, refused: undefined });
    try {
      await waitFor('the first event of the stream', async () => stream!.events.length > 0, allowance(15_000), 50);
    } finally {
      stream!.close();
    }
    const text = stream!.raw.slice(0, stream!.raw.indexOf(`id: ${stream!.events[0].id}\n`));
    const first = stream!.raw.slice(text.length);
    const body = text + first.slice(0, first.indexOf('\n\n') + 2);
    const type = (stream!.response.headers.get('content-type') ?? '').split(';')[0].trim();
    recorded[`GET ${template}`] ??= { request: { path }, response: { status: 200, type, body } };
  }

  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    ).filter(({ op }) => !op.tags.includes('docs'));

  function schemaErrors(schema: unknown, value: unknown): unknown {
    const validate = ajv.compile({ ...(schema as object), components: doc.components });
    return validate(value) ? null : validate.errors;
  }

  /** The request and response examples of an operation, each valid against its schema. */
  function checkExample(key: string, op: any, example: { request?: unknown; hasRequest: boolean; status: string; type: string; response: unknown }) {
    if (op.requestBody) {
      expect({ key, request: example.hasRequest }).toEqual({ key, request: true });
      const media = op.requestBody.content['application/json'] ?? Object.values<any>(op.requestBody.content)[0];
      expect({ key, request: schemaErrors(media.schema, example.request) }).toEqual({ key, request: null });
    }
    const response = op.responses[example.status];
    expect({ key, status: example.status, documented: Boolean(response?.content?.[example.type]) }).toEqual({ key, status: example.status, documented: true });
    expect({ key, response: schemaErrors(response.content[example.type].schema, example.response) }).toEqual({ key, response: null });
  }

  it('calls every operation of the document once, each answering with a documented success', async () => {
    const workspace = await mesh.createWorkspace({ name: 'Acme Outreach', planCredits: 100 });
    const key = (await mesh.key(workspace.id, 'live')).key as string;
    const testKey = (await mesh.key(workspace.id, 'test')).key as string;

    // CRM: leads, companies, pipelines, tasks
    const ada = await call('POST', '/leads', '/leads', {
      key,
      body: { full_name: 'Ada Lovelace', email: 'ada@analytical.test', title: 'Head of Engineering', company_name: 'Analytical Engines', company_domain: 'analytical.test', country: 'GB', tags: ['vip'], source_url: 'https://analytical.test/team' },
    });
    const grace = await call('POST', '/leads', '/leads', { key, body: { full_name: 'Grace Hopper', email: 'grace@cobol.test', company_domain: 'cobol.test', country: 'US' } });
    await call('GET', '/leads', '/leads?limit=2', { key });
    await call('GET', '/leads/{id}', `/leads/${ada.body.id}`, { key });
    await call('PATCH', '/leads/{id}', `/leads/${ada.body.id}`, { key, body: { title: 'Countess of Lovelace', phone: null } });
    await call('GET', '/companies', '/companies?limit=2', { key });
    await call('GET', '/companies/{id}', `/companies/${ada.body.company_id}`, { key });
    const pipelines = await call('GET', '/pipelines', '/pipelines', { key });
    const pipeline = pipelines.body.data.find((p: any) => p.lens === ada.body.lens) ?? pipelines.body.data[0];
    await call('PUT', '/leads/{id}/stage', `/leads/${ada.body.id}/stage`, { key, body: { stage_id: pipeline.stages[1].id } });
    const task = await call('POST', '/tasks', '/tasks', { key, body: { title: 'Call back about the pilot', lead_id: ada.body.id, due_at: '2026-12-01T09:00:00.000Z' } });
    await call('GET', '/tasks', '/tasks?limit=10', { key });
    await call('PATCH', '/tasks/{id}', `/tasks/${task.body.id}`, { key, body: { status: 'done' } });

    // Exports: queued, then polled until completed, then the signed download
    const exp = await call('POST', '/exports', '/exports', { key, body: { format: 'csv', filter: { lens: 'leads' } } });
    let done: any;
    await waitFor('export completed', async () => {
      done = (await call('GET', '/exports/{id}', `/exports/${exp.body.id}`, { key, replace: true })).body;
      return done.status === 'completed';
    }, allowance(30_000), 200);
    const signed = new URL(done.download_url);
    await call('GET', '/exports/{id}/download', `/exports/${exp.body.id}/download${signed.search}`);

    // Search, reveals, credits: the demo corpus npm start seeds (its first 400 entities), so the recorded search finds the same on npm start
    expect(await mesh.admin('search:seed', '--count', '400')).toMatchObject({ inserted: 400 });
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(30_000));
    const search = await call('GET', '/search', '/search?lens=investors&q=Orbit', { key });
    await call('POST', '/reveals', '/reveals', { key: testKey, body: { entity_id: search.body.data[0].entity_id } });
    await call('GET', '/credits', '/credits', { key });

    // Sequences: a mailbox on the sink, a sequence, enrollments, the engine's email and its unsubscribe link
    const mailbox = await mesh.admin('mailbox:create', '--workspace', workspace.id, '--email', 'sales@acme.test', '--smtp-url', `smtp://127.0.0.1:${sink.port}`);
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-examples-')), 'sequence.json');
    writeFileSync(file, JSON.stringify({
      name: 'Pilot outreach', mailbox_ids: [mailbox.id],
      steps: [{ type: 'email', subject: 'A pilot for {{company_name|your team}}', body: 'Hi {{first_name|there}}, ... Unsubscribe: {{unsubscribe_url}}' }, { type: 'wait', wait_days: 3 }, { type: 'email', subject: 'Following up', body: 'Any thoughts? {{unsubscribe_url}}' }],
    }));
    const sequence = await mesh.admin('sequence:create', '--workspace', workspace.id, '--file', file);
    // each recorded request names only objects an earlier recorded answer holds (the Postman collection runs them in this order)
    await call('GET', '/sequences', '/sequences', { key });
    await call('GET', '/sequences/{id}', `/sequences/${sequence.id}`, { key });
    await call('POST', '/sequences/{id}/enrollments', `/sequences/${sequence.id}/enrollments`, { key, body: { lead_ids: [ada.body.id] } });
    await call('POST', '/sequences/{id}/enrollments', `/sequences/${sequence.id}/enrollments`, { key, body: { lead_ids: [grace.body.id] } });
    await call('DELETE', '/sequences/{id}/enrollments/{lead_id}', `/sequences/${sequence.id}/enrollments/${ada.body.id}`, { key });
    await mesh.admin('sequence:launch', '--sequence', sequence.id);
    const mail = await eventually('the first email of the sequence', () => sink.to('grace@cobol.test')[0], allowance(30_000));
    const unsubscribe = local(/^<(.+)>$/.exec(mail.raw('list-unsubscribe') as string)![1]).slice(mesh.baseUrl.length);
    await call('GET', '/unsubscribe/{token}', unsubscribe);
    await call('POST', '/unsubscribe/{token}', unsubscribe, { form: { 'List-Unsubscribe': 'One-Click' } });

    // Suppressions
    await call('POST', '/suppressions', '/suppressions', { key, body: { email: 'no-thanks@example.com', reason: 'unsubscribe' } });
    await call('GET', '/suppressions', '/suppressions', { key });

    // Webhook endpoints
    const endpoint = await call('POST', '/webhook_endpoints', '/webhook_endpoints', { key, body: { url: 'https://receiver.example/hooks/lim', events: ['lead.created', 'lead.updated'], description: 'CRM sync' } });
    await call('GET', '/webhook_endpoints', '/webhook_endpoints', { key });
    await call('GET', '/webhook_endpoints/{id}', `/webhook_endpoints/${endpoint.body.id}`, { key });
    await call('PATCH', '/webhook_endpoints/{id}', `/webhook_endpoints/${endpoint.body.id}`, { key, body: { events: ['*'], description: 'CRM sync (every event)' } });
    await call('POST', '/webhook_endpoints/{id}/secret/roll', `/webhook_endpoints/${endpoint.body.id}/secret/roll`, { key, body: {} });
    await call('POST', '/webhook_endpoints/{id}/test', `/webhook_endpoints/${endpoint.body.id}/test`, { key, body: { type: 'lead.created' } });
    // an event for it: its delivery (as the sample's) to a name that never resolves (.example) fails, with the error recorded
    await call('POST', '/leads', '/leads', { key, body: { full_name: 'Edsger Dijkstra', email: 'edsger@goto.test' } });
    await waitFor('an attempt of each delivery', async () => {
      const list = (await mesh.request('GET', `/webhook_endpoints/${endpoint.body.id}/deliveries`, { key })).body.data;
      return list.length === 2 && list.every((d: any) => d.attempts.length > 0);
    }, allowance(30_000));
    const deliveries = await call('GET', '/webhook_endpoints/{id}/deliveries', `/webhook_endpoints/${endpoint.body.id}/deliveries`, { key });
    await call('POST', '/webhook_endpoints/{id}/deliveries/{delivery_id}/retry',
      `/webhook_endpoints/${endpoint.body.id}/deliveries/${deliveries.body.data[0].id}/retry`, { key, body: {} });
    // the workspace's events, stored as the webhooks service consumed them
    const events = await call('GET', '/events', '/events?type=lead.created&limit=2', { key });
    await call('GET', '/events/{id}', `/events/${events.body.data[0].id}`, { key });
    // the stream resumed after the older of the two: the events stored since, the newer one among them
    await callStream('/events/stream', '/events/stream?types=lead.created', { key, lastEventId: events.body.data[1].id });
    // its curl sample: the stream's headers and then nothing new (cut after 2 s, as a reader would press ^C)
    if (!WRITE) await runCurlSample('GET /events/stream', '/events/stream?types=lead.created', key, undefined, '-N --max-time 2');
    await call('DELETE', '/webhook_endpoints/{id}', `/webhook_endpoints/${endpoint.body.id}`, { key });

    // The public opt-out portal: form, mailed link, confirmation
    await call('GET', '/optout', '/optout');
    await call('POST', '/optout', '/optout', { form: { email: 'pat@portal.test' } });
    const confirmation = await eventually('the opt-out confirmation email', () => sink.to('pat@portal.test').find((m) => m.from === 'optout@platform.test'), allowance(30_000));
    const confirm = local(/https?:\/\/\S+\/optout\/confirm\/\S+/.exec(confirmation!.text)![0]).slice(mesh.baseUrl.length);
    await call('GET', '/optout/confirm/{token}', confirm);
    await call('POST', '/optout/confirm/{token}', confirm, { form: {} });

    await call('DELETE', '/leads/{id}', `/leads/${ada.body.id}`, { key });

    // the documentation routes' samples: no parameters, no key
    for (const [template, ops] of Object.entries<any>(doc.paths)) {
      const sample = ops.get?.tags.includes('docs') && ops.get['x-codeSamples'].find((c: any) => c.label === 'curl').source;
      if (!sample) continue;
      const status = await shell(`${sample.replace(`'${SAMPLE_BASE_URL}${template}'`, `'${mesh.baseUrl}${template}'`)} -s -o /dev/null -w '%{http_code}'`, {});
      expect({ template, status }).toEqual({ template, status: '200' });
    }

    const missing = operations().map(({ key: k }) => k).filter((k) => !recorded[k]);
    expect(missing).toEqual([]);
  }, longTestMs(180_000));

  it('this run\'s requests and answers validate against the document', () => {
    for (const { key, op } of operations()) {
      const example = recorded[key];
      if (!example) continue; // reported by the walk
      checkExample(key, op, {
        hasRequest: 'body' in example.request, request: example.request.body,
        status: String(example.response.status), type: example.response.type, response: example.response.body,
      });
    }
  });

  (WRITE ? it : it.skip)('writes the examples (OPENAPI_EXAMPLES_WRITE=1)', () => {
    // `order`: the position in this run, where each request names only objects earlier answers hold
    const sorted = Object.fromEntries(Object.entries(recorded).map(([k, v], order): [string, RecordedExample] => [k, { order, ...v }]).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  });

  (WRITE ? it.skip : it)('every operation of the served document has its recorded examples, valid against its schemas', () => {
    for (const { key, op } of operations()) {
      const requestMedia = op.requestBody && (op.requestBody.content['application/json'] ?? Object.values<any>(op.requestBody.content)[0]);
      const responses = Object.entries<any>(op.responses).flatMap(([status, r]) =>
        Object.entries<any>(r.content ?? {}).filter(([, m]) => m.examples?.recorded).map(([type, m]) => ({ status, type, value: m.examples.recorded.value })),
      );
      expect({ key, responseExamples: responses.length }).toEqual({ key, responseExamples: 1 });
      const [response] = responses;
      expect(Number(response.status)).toBeLessThan(300);
      checkExample(key, op, {
        hasRequest: Boolean(requestMedia?.examples?.recorded), request: requestMedia?.examples?.recorded?.value,
        status: response.status, type: response.type, response: response.value,
      });
    }
  });
});
