import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { EventStreamReader } from '../../support/event-stream';
import { eventually, SmtpSink } from '../../support/smtp-sink';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

const UNKNOWN_SEQUENCE = 'seq_0000000000aaaaaaaaaaaaaa';
const UNKNOWN_LEAD = 'lead_0000000000aaaaaaaaaaaaaa';
const DAY = 86_400_000;

/** Sequences, enrollments, suppressions and the sending engine through the gateway, against a real SMTP server. */
describe('sequences end to end', () => {
  let mesh: TestMesh;
  let sink: SmtpSink;
  let key: string;
  let testKey: string;
  let ws: string;
  let mailboxId: string;
  let sequenceId: string;
  const dir = mkdtempSync(join(tmpdir(), 'seq-e2e-'));

  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const lead = async (body: Record<string, unknown>) => {
    const res = await mesh.request('POST', '/leads', { key, body: { lens: 'leads', ...body } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const outbox = async (type: string) =>
    (await mesh.query('sequences', 'SELECT envelope FROM outbox WHERE type = $1 ORDER BY seq', [type])).map((r) => r.envelope);
  const enrollment = async (leadId: string, seq = sequenceId) =>
    (await mesh.query('sequences', 'SELECT status, stop_reason, current_step, hold_reason FROM enrollments WHERE sequence_id = $1 AND lead_id = $2', [seq, leadId]))[0];
  const moveClock = (ms: number) => mesh.query('sequences', 'UPDATE test_clock SET offset_ms = offset_ms + $1', [ms]);

  beforeAll(async () => {
    sink = await SmtpSink.start();
    mesh = await TestMesh.start(['gateway', 'crm', 'sequences'], { SEQUENCES_TICK_MS: '100', SEQUENCES_TEST_CLOCK: 'on' });
    const made = await mesh.workspace();
    key = made.key;
    ws = made.workspace.id;
    testKey = (await mesh.key(ws, 'test')).key;
    const mailbox = await mesh.admin('mailbox:create', '--workspace', ws, '--email', 'sales@sender.test', '--smtp-url', `smtp://user:s3cret@127.0.0.1:${sink.port}`, '--daily-cap', '1000');
    mailboxId = mailbox.id;
  }, meshHookTimeoutMs(3));
  afterAll(async () => {
    await mesh?.close();
    await sink?.close();
  });

  it('mailbox:create verifies the SMTP server and keeps the credentials encrypted', async () => {
    const [row] = await mesh.query('sequences', 'SELECT verified, smtp_auth_enc FROM mailboxes WHERE id = $1', [mailboxId]);
    expect(row.verified).toBe(true);
    expect(row.smtp_auth_enc).toMatch(/^v1\./);
    expect(row.smtp_auth_enc).not.toContain('s3cret');
  });

  it('sequence:launch refuses with every checklist failure', async () => {
    const bad = await mesh.admin('sequence:create', '--workspace', ws, '--file', file('bad.json', {
      name: 'Bad', mailbox_ids: [mailboxId], steps: [{ type: 'email', subject: 'Hi {{nickname}}', body: 'No link here' }, { type: 'wait', wait_days: 2 }],
    }));
    expect(bad.status).toBe('draft');
    const out = await mesh.adminRaw(['sequence:launch', '--sequence', bad.id]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/last step is a wait step/);
    expect(out.stderr).toMatch(/unknown merge tags: nickname/);
    expect(out.stderr).toMatch(/no unsubscribe link/);
    const res = await mesh.request('GET', `/sequences/${bad.id}`, { key });
    expect(res.body.status).toBe('draft');
  });

  it('sequence:create and launch; GET /sequences and /sequences/{id}', async () => {
    const created = await mesh.admin('sequence:create', '--workspace', ws, '--file', file('good.json', {
      name: 'Outreach', lens: 'leads', mailbox_ids: [mailboxId], business_days_only: false,
      steps: [
        { type: 'email', subject: 'Hello {{first_name|there}}', body: 'Hi {{first_name|there}} at {{company_name|your company}}.\nUnsubscribe: {{unsubscribe_url}}' },
        { type: 'wait', wait_days: 2 },
        { type: 'email', subject: 'Following up', body: 'Again, {{first_name|friend}}. {{unsubscribe_url}}' },
      ],
    }));
    sequenceId = created.id;
    const listDraft = await mesh.request('GET', '/sequences?status=draft', { key });
    expect(listDraft.status).toBe(200);
    expect(listDraft.body.data.map((s: any) => s.id)).toEqual(expect.arrayContaining([sequenceId]));
    const launched = await mesh.admin('sequence:launch', '--sequence', sequenceId);
    expect(launched.status).toBe('active');
    expect(launched.launched_at).toEqual(expect.any(String));
    const res = await mesh.request('GET', `/sequences/${sequenceId}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: sequenceId, object: 'sequence', name: 'Outreach', lens: 'leads', status: 'active', mailbox_ids: [mailboxId], business_days_only: false,
      stats: { enrolled: 0, active: 0, sent: 0, replied: 0, bounced: 0, unsubscribed: 0 },
      steps: [
        { position: 1, type: 'email', subject: 'Hello {{first_name|there}}', wait_days: null },
        { position: 2, type: 'wait', subject: null, wait_days: 2 },
        { position: 3, type: 'email', subject: 'Following up', wait_days: null },
      ],
    });
    const active = await mesh.request('GET', '/sequences?status=active&limit=1', { key });
    expect(active.body.data.map((s: any) => s.id)).toEqual([sequenceId]);
    expect(active.body.has_more).toBe(false);
    const page1 = await mesh.request('GET', '/sequences?limit=1', { key });
    expect(page1.body.has_more).toBe(true);
    const page2 = await mesh.request('GET', `/sequences?limit=1&starting_after=${page1.body.next_cursor}`, { key });
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
  });

  it('GET errors: bad status 400, unknown id 404', async () => {
    expectApiError(await mesh.request('GET', '/sequences?status=running', { key }), 400, 'invalid_request', 'status');
    expectApiError(await mesh.request('GET', '/sequences?limit=0', { key }), 400, 'invalid_request', 'limit');
    expectApiError(await mesh.request('GET', `/sequences/${UNKNOWN_SEQUENCE}`, { key }), 404, 'not_found');
  });

  const leads: Record<string, string> = {};

  it('POST enrollments: every skip reason, 201, test key enrolls nothing', async () => {
    leads.ok = await lead({ full_name: 'Ada Lovelace', first_name: 'Ada', email: 'ada@target.test', company_name: 'Engines' });
    leads.noFirst = await lead({ full_name: 'X Y', email: 'xy@target.test' });
    leads.noEmail = await lead({ full_name: 'No Mail' });
    leads.invalid = await lead({ full_name: 'Bad Mail', email: 'bad@target.test' });
    leads.suppressed = await lead({ full_name: 'Sup Pressed', email: 'Sup@Target.test' });
    leads.subdomain = await lead({ full_name: 'Sub Domain', email: 'a@mail.blocked.test' });
    leads.de = await lead({ full_name: 'Hans Legit', email: 'hans@firma.test', country: 'DE' });
    leads.deConsent = await lead({ full_name: 'Greta Consent', first_name: 'Greta', email: 'greta@firma.test', country: 'DE', lawful_basis: 'consent' });
    await mesh.query('crm', `UPDATE leads SET email_status = 'invalid' WHERE id = $1`, [leads.invalid]);
    expect((await mesh.request('POST', '/suppressions', { key, body: { email: 'sup@target.test' } })).status).toBe(201);
    expect((await mesh.request('POST', '/suppressions', { key, body: { domain: 'BLOCKED.test' } })).status).toBe(201);
    const ids = [leads.ok, leads.noFirst, leads.noEmail, leads.invalid, leads.suppressed, leads.subdomain, leads.de, leads.deConsent, UNKNOWN_LEAD];

    const dry = await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key: testKey, body: { lead_ids: ids } });
    expect(dry.status).toBe(201);
    expect(dry.body.livemode).toBe(false);
    expect(dry.body.enrolled.map((e: any) => e.lead_id)).toEqual([leads.ok, leads.noFirst, leads.deConsent]);
    expect(await mesh.query('sequences', 'SELECT 1 FROM enrollments WHERE sequence_id = $1', [sequenceId])).toHaveLength(0);

    const res = await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key, body: { lead_ids: ids } });
    expect(res.status).toBe(201);
    expect(res.body.object).toBe('enrollment_result');
    expect(res.body.livemode).toBe(true);
    expect(res.body.enrolled.map((e: any) => e.lead_id)).toEqual([leads.ok, leads.noFirst, leads.deConsent]);
    for (const e of res.body.enrolled) {
      expect(e).toMatchObject({ object: 'enrollment', sequence_id: sequenceId, status: 'active', current_step: 1, stopped_at: null, stop_reason: null });
      expect(e.id).toMatch(/^enr_/);
    }
    expect(res.body.skipped).toEqual([
      { lead_id: leads.noEmail, reason: 'no_email' },
      { lead_id: leads.invalid, reason: 'email_invalid' },
      { lead_id: leads.suppressed, reason: 'suppressed' },
      { lead_id: leads.subdomain, reason: 'suppressed' },
      { lead_id: leads.de, reason: 'country_blocked' },
      { lead_id: UNKNOWN_LEAD, reason: 'not_found' },
    ]);
    const again = await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key, body: { lead_ids: [leads.ok] } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ enrolled: [], skipped: [{ lead_id: leads.ok, reason: 'already_enrolled' }] });
  });

  it('countries:set overrides the shipped defaults', async () => {
    await mesh.admin('countries:set', '--workspace', ws, '--country', 'de', '--rule', 'allow');
    const other = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'good.json'));
    const res = await mesh.request('POST', `/sequences/${other.id}/enrollments`, { key: testKey, body: { lead_ids: [leads.de] } });
    expect(res.body.enrolled.map((e: any) => e.lead_id)).toEqual([leads.de]);
    await mesh.admin('countries:set', '--workspace', ws, '--country', 'DE', '--rule', 'block');
    const blocked = await mesh.request('POST', `/sequences/${other.id}/enrollments`, { key: testKey, body: { lead_ids: [leads.deConsent] } });
    expect(blocked.body.skipped).toEqual([{ lead_id: leads.deConsent, reason: 'country_blocked' }]);
  });

  it('POST enrollments errors', async () => {
    expectApiError(await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key, body: { lead_ids: [] } }), 400, 'invalid_request', 'lead_ids');
    const tooMany = Array.from({ length: 501 }, (_, i) => `lead_${i}`);
    expectApiError(await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key, body: { lead_ids: tooMany } }), 400, 'invalid_request', 'lead_ids');
    expectApiError(await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key, body: { lead_ids: 'x' } }), 400, 'invalid_request', 'lead_ids');
    expectApiError(await mesh.request('POST', `/sequences/${sequenceId}/enrollments`, { key, body: { lead_ids: [leads.ok], extra: 1 } }), 400, 'invalid_request', 'extra');
    expectApiError(await mesh.request('POST', `/sequences/${UNKNOWN_SEQUENCE}/enrollments`, { key, body: { lead_ids: [leads.ok] } }), 404, 'not_found');
  });

  it('the engine sends step 1 over SMTP with merge tags, Message-ID and List-Unsubscribe headers; email.sent', async () => {
    await eventually('two first emails', () => sink.to('ada@target.test').length >= 1 && sink.to('xy@target.test').length >= 1);
    const [ada] = sink.to('ada@target.test');
    expect(ada.subject).toBe('Hello Ada');
    expect(ada.text).toContain('Hi Ada at Engines.');
    expect(ada.auth).toBe('user:s3cret');
    expect(ada.from).toBe('sales@sender.test');
    expect(ada.messageId).toMatch(/^<msg_.+@sender\.test>$/);
    expect(ada.raw('list-unsubscribe')).toMatch(/^<http:\/\/.+\/api\/v1\/unsubscribe\/enr_[^>]+>$/);
    expect(ada.raw('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(sink.to('xy@target.test')[0].subject).toBe('Hello there');
    const sent = await eventually<any[] | null>('email.sent events', async () => ((await outbox('email.sent')).length >= 3 ? outbox('email.sent') : null));
    expect(sent![0].data.object).toMatchObject({ sequence_id: sequenceId, mailbox_id: mailboxId, direction: 'outbound', from: 'sales@sender.test' });
    expect([2, 3]).toContain((await enrollment(leads.ok)).current_step); // past the email, maybe past the wait's scheduling
  });

  it('waits run on the engine clock: step 3 after two days, then completed with sequence.completed', async () => {
    await eventually('wait scheduled', async () => (await enrollment(leads.ok)).current_step === 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(sink.to('ada@target.test')).toHaveLength(1);
    await moveClock(2 * DAY + 60_000);
    await eventually('second email', () => sink.to('ada@target.test').length === 2);
    expect(sink.to('ada@target.test')[1].subject).toBe('Following up');
    await eventually('completed', async () => (await enrollment(leads.ok)).status === 'completed');
    const completed = await eventually('sequence.completed', async () => (await outbox('sequence.completed')).find((e) => e.data.object.lead_id === leads.ok));
    expect(completed.data.object).toMatchObject({ object: 'enrollment', status: 'completed', stop_reason: null, next_send_at: null });
    const ids = sink.mails.map((m) => m.messageId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  const repliedLead: { sequenceId?: string; leadId?: string } = {};

  it('a reply stops the enrollment (email.replied); an out-of-office does not', async () => {
    const s2 = await mesh.admin('sequence:create', '--workspace', ws, '--file', file('long.json', {
      name: 'Long', mailbox_ids: [mailboxId], steps: [
        { type: 'email', subject: 'One {{first_name|there}}', body: 'x {{unsubscribe_url}}' }, { type: 'wait', wait_days: 30 },
        { type: 'email', subject: 'Two', body: 'y {{unsubscribe_url}}' },
      ],
    }));
    await mesh.admin('sequence:launch', '--sequence', s2.id);
    const replier = await lead({ full_name: 'Rita Reply', first_name: 'Rita', email: 'rita@target.test' });
    const bouncer = await lead({ full_name: 'Bo Bounce', first_name: 'Bo', email: 'bo@target.test' });
    const res = await mesh.request('POST', `/sequences/${s2.id}/enrollments`, { key, body: { lead_ids: [replier, bouncer] } });
    expect(res.body.enrolled).toHaveLength(2);
    const sent = await eventually('first email to rita', () => sink.to('rita@target.test')[0]);
    const ooo = [
      'From: Rita <rita@target.test>', 'To: sales@sender.test', 'Subject: Automatic reply: One Rita', 'Auto-Submitted: auto-replied',
      `In-Reply-To: ${sent.messageId}`, 'Message-ID: <ooo-1@target.test>', '', 'I am away until Monday.',
    ].join('\r\n');
    expect((await mesh.rpc('sequences.inbound.raw', {}, { raw: ooo })).response).toMatchObject({ kind: 'auto_reply' });
    expect((await enrollment(replier, s2.id)).status).toBe('active');
    const reply = [
      'From: Rita <rita@target.test>', 'To: sales@sender.test', 'Subject: Re: One Rita', `In-Reply-To: ${sent.messageId}`,
      `References: ${sent.messageId}`, 'Message-ID: <reply-1@target.test>', '', 'Sounds good, call me.', '', '> x',
    ].join('\r\n');
    expect((await mesh.rpc('sequences.inbound.raw', {}, { raw: reply })).response).toMatchObject({ kind: 'reply' });
    expect(await enrollment(replier, s2.id)).toMatchObject({ status: 'stopped', stop_reason: 'replied' });
    const replied = (await outbox('email.replied')).at(-1);
    expect(replied.data.object).toMatchObject({ direction: 'inbound', from: 'rita@target.test', lead_id: replier, sequence_id: s2.id, snippet: expect.stringContaining('Sounds good') });

    // a hard bounce (RFC 3464): invalid + suppressed + bounced + email.bounced
    const bounced = await eventually('first email to bo', () => sink.to('bo@target.test')[0]);
    const dsn = [
      'From: Mail Delivery System <MAILER-DAEMON@mx.target.test>', 'To: sales@sender.test', 'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0', 'Content-Type: multipart/report; report-type=delivery-status; boundary="B"', 'Message-ID: <dsn-1@mx.target.test>', '',
      '--B', 'Content-Type: text/plain', '', 'Your message could not be delivered.', '',
      '--B', 'Content-Type: message/delivery-status', '', 'Reporting-MTA: dns; mx.target.test', '', 'Final-Recipient: rfc822; bo@target.test',
      'Action: failed', 'Status: 5.1.1', 'Diagnostic-Code: smtp; 550 5.1.1 <bo@target.test>: Recipient address rejected', '',
      '--B', 'Content-Type: text/rfc822-headers', '', `Message-ID: ${bounced.messageId}`, 'To: bo@target.test', 'Subject: One Bo', '', '--B--', '',
    ].join('\r\n');
    expect((await mesh.rpc('sequences.inbound.raw', {}, { raw: dsn })).response).toMatchObject({ kind: 'hard_bounce', status: '5.1.1' });
    expect(await enrollment(bouncer, s2.id)).toMatchObject({ status: 'stopped', stop_reason: 'bounced' });
    const bounceEvent = (await outbox('email.bounced')).at(-1);
    expect(bounceEvent.data.object).toMatchObject({ direction: 'outbound', to: 'bo@target.test', snippet: expect.stringContaining('5.1.1') });
    await eventually('lead invalid in crm', async () => (await mesh.query('crm', 'SELECT email_status FROM leads WHERE id = $1', [bouncer]))[0].email_status === 'invalid');
    const sups = await mesh.request('GET', '/suppressions?q=bo@target', { key });
    expect(sups.body.data).toEqual([expect.objectContaining({ type: 'email', value: 'bo@target.test', reason: 'bounce', scope: 'workspace' })]);
    const stats = (await mesh.request('GET', `/sequences/${s2.id}`, { key })).body.stats;
    expect(stats).toEqual({ enrolled: 2, active: 0, sent: 2, replied: 1, bounced: 1, unsubscribed: 0 });
    Object.assign(repliedLead, { sequenceId: s2.id, leadId: replier });
  });

  it('DELETE enrollment: stopped/removed, next_send_at null; 404s', async () => {
    const s3 = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json'));
    const l = await lead({ full_name: 'Del Me', email: 'del@target.test' });
    await mesh.request('POST', `/sequences/${s3.id}/enrollments`, { key, body: { lead_ids: [l] } });
    const res = await mesh.request('DELETE', `/sequences/${s3.id}/enrollments/${l}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'enrollment', lead_id: l, status: 'stopped', stop_reason: 'removed', next_send_at: null, stopped_at: expect.any(String) });
    expectApiError(await mesh.request('DELETE', `/sequences/${s3.id}/enrollments/${UNKNOWN_LEAD}`, { key }), 404, 'not_found');
    expectApiError(await mesh.request('DELETE', `/sequences/${UNKNOWN_SEQUENCE}/enrollments/${l}`, { key }), 404, 'not_found');
  });

  it('DELETE of an enrollment that had completed or stopped answers stopped/removed too; its messages and the stats keep its history', async () => {
    expect(await enrollment(leads.ok)).toMatchObject({ status: 'completed', stop_reason: null });
    const completed = await mesh.request('DELETE', `/sequences/${sequenceId}/enrollments/${leads.ok}`, { key });
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ object: 'enrollment', lead_id: leads.ok, status: 'stopped', stop_reason: 'removed', next_send_at: null, stopped_at: expect.any(String) });
    expect(await mesh.query('sequences', `SELECT direction, status FROM email_messages WHERE sequence_id = $1 AND lead_id = $2 ORDER BY created_at`, [sequenceId, leads.ok]))
      .toEqual([{ direction: 'outbound', status: 'sent' }, { direction: 'outbound', status: 'sent' }]);

    const { sequenceId: s2, leadId: rita } = repliedLead;
    const before = (await mesh.request('GET', `/sequences/${s2}`, { key })).body.stats;
    expect(await enrollment(rita!, s2)).toMatchObject({ status: 'stopped', stop_reason: 'replied' });
    const stopped = await mesh.request('DELETE', `/sequences/${s2}/enrollments/${rita}`, { key });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ object: 'enrollment', lead_id: rita, status: 'stopped', stop_reason: 'removed', next_send_at: null, stopped_at: expect.any(String) });
    expect((await mesh.request('GET', `/sequences/${s2}`, { key })).body.stats).toEqual(before);
    expect(await mesh.query('sequences', `SELECT direction FROM email_messages WHERE sequence_id = $1 AND lead_id = $2 ORDER BY created_at`, [s2, rita]))
      .toEqual([{ direction: 'outbound' }, { direction: 'inbound' }]);

    const again = await mesh.request('DELETE', `/sequences/${s2}/enrollments/${rita}`, { key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(stopped.body);
  });

  it('suppressions: exactly one of email/domain; domain stops active enrollments at once; unsubscribe.created; list filters and global entries', async () => {
    expectApiError(await mesh.request('POST', '/suppressions', { key, body: {} }), 400, 'invalid_request', 'email');
    expectApiError(await mesh.request('POST', '/suppressions', { key, body: { email: 'a@b.test', domain: 'b.test' } }), 400, 'invalid_request');
    expectApiError(await mesh.request('POST', '/suppressions', { key, body: { email: 'not-an-email' } }), 400, 'invalid_request', 'email');
    expectApiError(await mesh.request('POST', '/suppressions', { key, body: { email: 'a@b.test', reason: 'bounce' } }), 400, 'invalid_request', 'reason');

    const s4 = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json'));
    const l = await lead({ full_name: 'Corp Person', email: 'Someone@EU.Corp.test' });
    await mesh.request('POST', `/sequences/${s4.id}/enrollments`, { key, body: { lead_ids: [l] } });
    const res = await mesh.request('POST', '/suppressions', { key, body: { domain: 'corp.TEST', reason: 'unsubscribe' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'suppression', type: 'domain', value: 'corp.test', reason: 'unsubscribe', scope: 'workspace' });
    expect(res.body.id).toMatch(/^sup_/);
    expect(await enrollment(l, s4.id)).toMatchObject({ status: 'stopped', stop_reason: 'suppressed' });
    expect((await outbox('unsubscribe.created')).map((e) => e.data.object.id)).toContain(res.body.id);

    await mesh.admin('optout:add', '--email', 'Global@Optout.test');
    const all = await mesh.request('GET', '/suppressions?limit=100', { key });
    expect(all.body.data.map((s: any) => `${s.scope}:${s.value}`)).toEqual(expect.arrayContaining(['global:global@optout.test', 'workspace:corp.test', 'workspace:sup@target.test']));
    const domains = await mesh.request('GET', '/suppressions?type=domain', { key });
    expect(domains.body.data.every((s: any) => s.type === 'domain')).toBe(true);
    const q = await mesh.request('GET', '/suppressions?q=OPTOUT', { key });
    expect(q.body.data.map((s: any) => s.value)).toEqual(['global@optout.test']);
    const p1 = await mesh.request('GET', '/suppressions?limit=1', { key });
    expect(p1.body.has_more).toBe(true);
    const p2 = await mesh.request('GET', `/suppressions?limit=1&starting_after=${p1.body.next_cursor}`, { key });
    expect(p2.body.data[0].id).not.toBe(p1.body.data[0].id);
    expectApiError(await mesh.request('GET', '/suppressions?type=phone', { key }), 400, 'invalid_request', 'type');
    // another workspace sees the global entry but not this one's
    const other = await mesh.workspace();
    const theirs = await mesh.request('GET', '/suppressions', { key: other.key });
    expect(theirs.body.data.map((s: any) => s.value)).toEqual(['global@optout.test']);
  });

  it('one-click unsubscribe from the List-Unsubscribe header: no API key, a workspace suppression, the enrollment unsubscribed', async () => {
    const s6 = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json'));
    await mesh.admin('sequence:launch', '--sequence', s6.id);
    const u = await lead({ full_name: 'Una Subscribe', email: 'una@target.test' });
    await mesh.request('POST', `/sequences/${s6.id}/enrollments`, { key, body: { lead_ids: [u] } });
    const greta = await eventually('email to una', () => sink.to('una@target.test')[0]);
    // the link names PUBLIC_API_URL (the default port here): the same path on this mesh's gateway
    const url = `${mesh.baseUrl}${new URL(String(greta.raw('list-unsubscribe')).slice(1, -1)).pathname.replace(/^\/api\/v1/, '')}`;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Unsubscribe');
    expect((await enrollment(u, s6.id)).status).toBe('active');
    const post = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(post.status).toBe(200);
    const [sup] = await mesh.query('sequences', `SELECT reason, scope FROM suppressions WHERE value = 'una@target.test'`);
    expect(sup).toEqual({ reason: 'unsubscribe', scope: 'workspace' });
    expect(await enrollment(u, s6.id)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' });
    expect((await mesh.request('GET', `/sequences/${s6.id}`, { key })).body.stats).toMatchObject({ enrolled: 1, active: 0, sent: 1, unsubscribed: 1 });
    const forged = await fetch(url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), { method: 'POST' });
    expect(forged.status).toBe(404);
  });

  it('lead.deleted from crm deletes that lead\'s enrollments (others stay) and cancels its queued email', async () => {
    const s5 = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json'));
    const l = await lead({ full_name: 'Gone Soon', email: 'gone@target.test' });
    const stays = await lead({ full_name: 'Stays Here', email: 'stays@target.test' });
    await mesh.request('POST', `/sequences/${s5.id}/enrollments`, { key, body: { lead_ids: [l, stays] } });
    const [enr] = await mesh.query('sequences', 'SELECT id FROM enrollments WHERE sequence_id = $1 AND lead_id = $2', [s5.id, l]);
    // a step of the doomed lead already handed to the engine but not sent yet
    await mesh.query('sequences', `INSERT INTO email_messages (id, workspace_id, lead_id, sequence_id, enrollment_id, step_position, mailbox_id, direction,
        from_addr, to_addr, subject, body, snippet, message_id, status, lease_until)
      VALUES ('msg_doomedqueued', $1, $2, $3, $4, 1, $5, 'outbound', 'out@sender.test', 'gone@target.test', 's', 'b', 'b', '<msg_doomedqueued@sender.test>', 'queued', now() + interval '1 hour')`,
    [ws, l, s5.id, enr.id, mailboxId]);
    expect((await mesh.request('GET', `/sequences/${s5.id}`, { key })).body.stats).toMatchObject({ enrolled: 2, active: 2 });
    expect((await mesh.request('DELETE', `/leads/${l}`, { key })).status).toBe(200);
    await eventually('enrollment deleted', async () => (await enrollment(l, s5.id)) === undefined);
    expect(await enrollment(stays, s5.id)).toMatchObject({ status: 'active' });
    expect(await mesh.query('sequences', `SELECT status FROM email_messages WHERE id = 'msg_doomedqueued'`)).toEqual([{ status: 'cancelled' }]);
    expect((await mesh.request('GET', `/sequences/${s5.id}`, { key })).body.stats).toMatchObject({ enrolled: 1, active: 1 });
  });

  it('a reply that asks to stop (raw RFC 822, six languages): workspace suppression `unsubscribe`, enrollments stopped `unsubscribed`, unsubscribe.created; "please don\'t remove me" is an ordinary reply', async () => {
    const s7 = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json'));
    await mesh.admin('sequence:launch', '--sequence', s7.id);
    const idle = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json')); // never launched: sends nothing
    const people: Record<string, { email: string; id?: string }> = {
      en: { email: 'eve@stop.test' }, de: { email: 'dora@stop.test' }, fr: { email: 'france@stop.test' }, es: { email: 'elena@stop.test' },
      nl: { email: 'noor@stop.test' }, it: { email: 'ilaria@stop.test' }, keep: { email: 'kim@stop.test' },
    };
    for (const [name, p] of Object.entries(people)) p.id = await lead({ full_name: `Person ${name}`, email: p.email });
    const ids = Object.values(people).map((p) => p.id as string);
    expect((await mesh.request('POST', `/sequences/${s7.id}/enrollments`, { key, body: { lead_ids: ids } })).body.enrolled).toHaveLength(7);
    expect((await mesh.request('POST', `/sequences/${idle.id}/enrollments`, { key, body: { lead_ids: [people.en.id] } })).body.enrolled).toHaveLength(1);
    const sent: Record<string, string> = {};
    for (const [name, p] of Object.entries(people)) sent[name] = (await eventually(`first email to ${p.email}`, () => sink.to(p.email)[0])).messageId as string;

    const headers = (name: string, subject: string, extra: string[] = []) => [
      `From: ${people[name].email}`, 'To: sales@sender.test', `Subject: ${subject}`, `In-Reply-To: ${sent[name]}`, `References: ${sent[name]}`,
      `Message-ID: <stop-${name}@stop.test>`, 'MIME-Version: 1.0', ...extra,
    ];
    const footer = ['', '> x Unsubscribe: http://127.0.0.1/api/v1/unsubscribe/enr_x.y'];
    const replies: Record<string, string> = {
      en: [...headers('en', 'Re: One there', ['Content-Type: text/plain; charset=utf-8']), '', 'Please take me off your list.', '', 'On Mon, sales@sender.test wrote:', ...footer].join('\r\n'),
      de: [...headers('de', 'AW: One there', ['Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable']), '',
        '<div>Bitte tragen Sie mich aus Ihrem Verteiler aus. Keine weiteren E-Mails.</div><blockquote>Gr=C3=BC=C3=9Fe, x</blockquote>'].join('\r\n'),
      fr: [...headers('fr', 'RE: One there', ['Content-Type: multipart/alternative; boundary="A"']), '', '--A', 'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit', '', 'Merci de me désinscrire.', '--A', 'Content-Type: text/html; charset=utf-8', '',
        '<p>Merci de me d&eacute;sinscrire.</p>', '--A--', ''].join('\r\n'),
      es: [...headers('es', 'RE: One there', ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64']), '',
        Buffer.from('Por favor, denme de baja. No me envíen más correos.\n').toString('base64')].join('\r\n'),
      nl: [...headers('nl', 'Antw: One there', ['Content-Type: text/plain; charset=utf-8']), '', 'Graag afmelden.'].join('\r\n'),
      it: [...headers('it', 'R: One there', ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit']), '', 'Non voglio più ricevere email, grazie.'].join('\r\n'),
      keep: [...headers('keep', 'Re: One there', ['Content-Type: text/plain; charset=utf-8']), '', "Please don't remove me from the list, I enjoy these. Call me Tuesday.", ...footer].join('\r\n'),
    };
    for (const [name, raw] of Object.entries(replies)) {
      const outcome = (await mesh.rpc('sequences.inbound.raw', {}, { raw })).response;
      expect([name, outcome.kind]).toEqual([name, name === 'keep' ? 'reply' : 'unsubscribe_reply']);
    }

    const unsubscribed = (await outbox('unsubscribe.created')).map((e) => e.data.object);
    for (const [name, p] of Object.entries(people)) {
      const [sup] = await mesh.query('sequences', `SELECT id, reason, scope, type FROM suppressions WHERE workspace_id = $1 AND value = $2`, [ws, p.email]);
      if (name === 'keep') {
        expect(sup).toBeUndefined();
        expect(await enrollment(p.id!, s7.id)).toMatchObject({ status: 'stopped', stop_reason: 'replied' });
        continue;
      }
      expect([name, sup]).toEqual([name, { id: expect.stringMatching(/^sup_/), reason: 'unsubscribe', scope: 'workspace', type: 'email' }]);
      expect([name, await enrollment(p.id!, s7.id)]).toEqual([name, expect.objectContaining({ status: 'stopped', stop_reason: 'unsubscribed' })]);
      expect(unsubscribed.filter((o) => o.id === sup.id)).toEqual([{ id: sup.id, object: 'suppression', type: 'email', value: p.email, reason: 'unsubscribe', scope: 'workspace', created_at: expect.any(String) }]);
    }
    // the suppression covers the address in every sequence of the workspace
    expect(await enrollment(people.en.id!, idle.id)).toMatchObject({ status: 'stopped', stop_reason: 'unsubscribed' });
    expect((await mesh.request('GET', `/sequences/${s7.id}`, { key })).body.stats).toMatchObject({ enrolled: 7, active: 0, replied: 1, unsubscribed: 6 });
    const repliedTo = (await outbox('email.replied')).map((e) => e.data.object.lead_id);
    expect(repliedTo).toEqual(expect.arrayContaining(ids));
    // the same reply delivered again changes nothing
    expect((await mesh.rpc('sequences.inbound.raw', {}, { raw: replies.en })).response).toMatchObject({ kind: 'unsubscribe_reply' });
    expect((await outbox('unsubscribe.created')).length).toBe(unsubscribed.length);
  });

  it('a hard bounce that arrives while crm is stopped: once crm is back the lead is invalid and lead.updated carries previous_attributes.email_status', async () => {
    const s8 = await mesh.admin('sequence:create', '--workspace', ws, '--file', join(dir, 'long.json'));
    await mesh.admin('sequence:launch', '--sequence', s8.id);
    const brook = await lead({ full_name: 'Brook Bounce', email: 'brook@target.test' });
    await mesh.query('crm', `UPDATE leads SET email_status = 'valid' WHERE id = $1`, [brook]);
    expect((await mesh.request('POST', `/sequences/${s8.id}/enrollments`, { key, body: { lead_ids: [brook] } })).body.enrolled).toHaveLength(1);
    const mail = await eventually('first email to brook', () => sink.to('brook@target.test')[0]);
    const stream = new EventStreamReader(await mesh.natsClient());

    await mesh.stopApp('crm');
    const dsn = [
      'From: MAILER-DAEMON@mx.target.test', 'To: sales@sender.test', 'Subject: Undelivered Mail Returned to Sender', 'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"', 'Message-ID: <dsn-brook@mx.target.test>', '',
      '--B', 'Content-Type: message/delivery-status', '', 'Reporting-MTA: dns; mx.target.test', '', 'Final-Recipient: rfc822; brook@target.test',
      'Action: failed', 'Status: 5.1.1', 'Diagnostic-Code: smtp; 550 5.1.1 user unknown', '',
      '--B', 'Content-Type: text/rfc822-headers', '', `Message-ID: ${mail.messageId}`, '', '--B--', '',
    ].join('\r\n');
    expect((await mesh.rpc('sequences.inbound.raw', {}, { raw: dsn })).response).toMatchObject({ kind: 'hard_bounce', status: '5.1.1' });
    const bounce = await stream.waitFor((e) => e.envelope.type === 'email.bounced' && e.envelope.data.object.lead_id === brook);
    await new Promise((r) => setTimeout(r, 500));
    expect(await mesh.query('crm', 'SELECT email_status FROM leads WHERE id = $1', [brook])).toEqual([{ email_status: 'valid' }]);

    await mesh.startApp('crm');
    const updated = await stream.waitFor((e) => e.envelope.type === 'lead.updated' && e.envelope.data.object.id === brook, allowance(20_000));
    expect(updated.envelope).toMatchObject({ workspace_id: ws, livemode: true, data: { object: { id: brook, object: 'lead', email: 'brook@target.test', email_status: 'invalid' }, previous_attributes: { email_status: 'valid' } } });
    expect(Object.keys(updated.envelope.data.previous_attributes ?? {})).toEqual(['email_status']);
    const res = await mesh.request('GET', `/leads/${brook}`, { key });
    expect(res.body.email_status).toBe('invalid');
    expect(await mesh.query('crm', 'SELECT consumer FROM processed_events WHERE event_id = $1', [bounce.envelope.id])).toEqual([{ consumer: 'crm-email-bounced' }]);
    // crm back and the event redelivered or not: the lead changed once
    await new Promise((r) => setTimeout(r, 500));
    expect((await stream.all()).filter((e) => e.envelope.type === 'lead.updated' && e.envelope.data.object.id === brook)).toHaveLength(1);
  });
});
