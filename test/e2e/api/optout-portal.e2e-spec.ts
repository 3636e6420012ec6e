import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../tools/mesh/processes';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { expectApiError } from '../../support/gateway-assertions';
import { eventually, SmtpSink } from '../../support/smtp-sink';

/** The public opt-out portal: ask with an address, confirm by the mailed link, a global opt_out suppression. */
describe('opt-out portal', () => {
  let mesh: TestMesh;
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    mesh = await TestMesh.start(['gateway', 'crm', 'sequences'], {
      SEQUENCES_TICK_MS: '100', OPTOUT_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, OPTOUT_FROM: 'optout@platform.test',
    });
  }, meshHookTimeoutMs(3));
  afterAll(async () => {
    await mesh?.close();
    await sink?.close();
  });

  /** Links name PUBLIC_API_URL (the default port here): the same path on this mesh's gateway. */
  const local = (url: string) => `${mesh.baseUrl}${new URL(url).pathname.replace(/^\/api\/v1/, '')}`;

  it('form, mailed link, confirmation: a global opt_out every workspace sees; enrollments of the address stop; unsubscribe.created', async () => {
    const { key, workspace } = await mesh.workspace();
    const mailbox = await mesh.admin('mailbox:create', '--workspace', workspace.id, '--email', 'sales@sender.test', '--smtp-url', `smtp://127.0.0.1:${sink.port}`);
    const path = join(mkdtempSync(join(tmpdir(), 'optout-')), 's.json');
    writeFileSync(path, JSON.stringify({ name: 'S', mailbox_ids: [mailbox.id], steps: [{ type: 'email', subject: 'Hi', body: 'x {{unsubscribe_url}}' }, { type: 'wait', wait_days: 5 }, { type: 'email', subject: 'Again', body: 'y {{unsubscribe_url}}' }] }));
    const seq = await mesh.admin('sequence:create', '--workspace', workspace.id, '--file', path);
    const lead = await mesh.request('POST', '/leads', { key, body: { full_name: 'Pat Portal', email: 'pat@portal.test' } });
    const enrolled = await mesh.request('POST', `/sequences/${seq.id}/enrollments`, { key, body: { lead_ids: [lead.body.id] } });
    expect(enrolled.body.enrolled).toHaveLength(1);

    const form = await fetch(`${mesh.baseUrl}/optout`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('<form method="post"');
    const asked = await fetch(`${mesh.baseUrl}/optout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=Pat%40Portal.test' });
    expect(asked.status).toBe(200);
    const mail = await eventually('confirmation email', () => sink.to('pat@portal.test').find((m) => m.from === 'optout@platform.test'));
    const link = /https?:\/\/\S+\/optout\/confirm\/\S+/.exec(mail!.text)?.[0] as string;
    expect(link).toBeTruthy();
    expect(await mesh.query('sequences', 'SELECT 1 FROM suppressions')).toHaveLength(0); // nothing before the confirmation

    const confirmPage = await fetch(local(link));
    expect(confirmPage.status).toBe(200);
    const forged = await fetch(local(link).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), { method: 'POST' });
    expect(forged.status).toBe(404);
    const confirmed = await fetch(local(link), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('You are opted out');

    const list = await mesh.request('GET', '/suppressions', { key });
    expect(list.body.data).toEqual([expect.objectContaining({ type: 'email', value: 'pat@portal.test', reason: 'opt_out', scope: 'global' })]);
    const other = await mesh.workspace();
    expect((await mesh.request('GET', '/suppressions', { key: other.key })).body.data.map((s: any) => s.value)).toEqual(['pat@portal.test']);
    const [e] = await mesh.query('sequences', 'SELECT status, stop_reason FROM enrollments WHERE lead_id = $1', [lead.body.id]);
    expect(e).toEqual({ status: 'stopped', stop_reason: 'unsubscribed' });
    const events = await mesh.query('sequences', `SELECT envelope FROM outbox WHERE type = 'unsubscribe.created'`);
    expect(events.map((r) => r.envelope.workspace_id)).toEqual([workspace.id]);
    // the address can no longer be enrolled anywhere
    const again = await mesh.request('POST', `/sequences/${seq.id}/enrollments`, { key: other.key, body: { lead_ids: [lead.body.id] } });
    expect(again.status).toBe(404); // another workspace does not see the sequence
  });

  it('a malformed address is 400 and no mail leaves', async () => {
    const before = sink.mails.length;
    const res = await fetch(`${mesh.baseUrl}/optout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'nope' }) });
    expect(res.status).toBe(400);
    expect(sink.mails.length).toBe(before);
  });

  const askByForm = (email: string) =>
    fetch(`${mesh.baseUrl}/optout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=${encodeURIComponent(email)}` });

  it('an address the mail server refuses gets the answer an accepted one gets (the portal reveals no mailbox)', async () => {
    sink.refuse.add('gone@portal.test');
    const refused = await mesh.request('POST', '/optout', { body: { email: 'gone@portal.test' } });
    const accepted = await mesh.request('POST', '/optout', { body: { email: 'here@portal.test' } });
    expect(accepted.status).toBe(200);
    expect({ status: refused.status, text: refused.text.replace('gone@', 'here@') }).toEqual({ status: accepted.status, text: accepted.text });
  });

  it('sequences not answering (a failover, a restart): 503 pages with Retry-After to the form and to the confirm button, nothing recorded; the link works once it is back', async () => {
    expect((await askByForm('wait@portal.test')).status).toBe(200);
    const mail = await eventually('confirmation email', () => sink.to('wait@portal.test').find((m) => m.from === 'optout@platform.test'));
    const link = local(/https?:\/\/\S+\/optout\/confirm\/\S+/.exec(mail!.text)![0]);
    await mesh.stopApp('sequences');
    try {
      const asked = await askByForm('later@portal.test');
      expect(asked.status).toBe(503);
      expect(asked.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(await asked.text()).toContain('no link was sent and nothing was recorded');
      const confirmed = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(confirmed.status).toBe(503);
      expect(confirmed.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(confirmed.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await confirmed.text()).toContain('nothing was changed');
    } finally {
      await mesh.startApp('sequences');
    }
    expect(await mesh.query('sequences', `SELECT 1 FROM suppressions WHERE value IN ('wait@portal.test', 'later@portal.test')`)).toHaveLength(0);
    const confirmed = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(confirmed.status).toBe(200);
    expect(await mesh.query('sequences', `SELECT reason FROM suppressions WHERE value = 'wait@portal.test'`)).toEqual([{ reason: 'opt_out' }]);
  });

  /** Sequences again with OPTOUT_SMTP_URL as given (undefined: none). */
  async function restartSequences(smtpUrl: string | undefined): Promise<void> {
    await mesh.stopApp('sequences');
    if (smtpUrl === undefined) delete mesh.env.OPTOUT_SMTP_URL;
    else mesh.env.OPTOUT_SMTP_URL = smtpUrl;
    await mesh.startApp('sequences');
  }

  it('no mail server configured, or one that does not answer: 503 service_unavailable (the error object to JSON, a page to the form), never 500', async () => {
    const closed = `smtp://127.0.0.1:${await freePort()}`;
    for (const smtpUrl of [undefined, closed]) {
      await restartSequences(smtpUrl);
      const json = await mesh.request('POST', '/optout', { body: { email: 'pat@portal.test' } });
      expectApiError(json, 503, 'service_unavailable');
      expect(json.body.error.type).toBe('api_error');
      expect(json.body.error.doc_url).toMatch(/\/docs\/errors#service_unavailable$/);
      const page = await askByForm('pat@portal.test');
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('no link was sent and nothing was recorded');
      // the form itself and a refused address still answer as ever
      expect((await fetch(`${mesh.baseUrl}/optout`)).status).toBe(200);
      expectApiError(await mesh.request('POST', '/optout', { body: { email: 'nope' } }), 400, 'invalid_request', 'email');
    }
  });
});
