import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HARNESS, meshHookTimeoutMs, TestMesh } from '../../harness';
import { ImapTestServer } from '../../support/imap-server';
import { eventually, SmtpSink } from '../../support/smtp-sink';
import { freePort, httpReady, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { TestCertificate, testCertificate } from '../../../tools/webhooks/https-receiver';
import { allowance } from '../../support/timing';

const POLL_MS = 200;

/**
 * Inbound mail by IMAP polling: two sequences replicas poll real local IMAP servers (npm
 * hoodiecrow-imap, one plain `imap://`, one `imaps://` whose certificate is trusted through
 * NODE_EXTRA_CA_CERTS) into which replies, a DSN and an out-of-office reply are APPENDed after
 * the engine sent real emails to a local SMTP sink. Nothing of ours is mocked.
 */
describe('inbound mail by IMAP polling', () => {
  let mesh: TestMesh;
  let sink: SmtpSink;
  let imap: ImapTestServer;
  let imaps: ImapTestServer;
  let cert: TestCertificate;
  let second: RunningApp;
  let key: string;
  let ws: string;
  let dir: string;
  const mailboxes: Record<string, string> = {};

  const lead = async (fields: Record<string, unknown>) => {
    const { response, err } = await mesh.rpc('crm.leads.create', { workspace_id: ws }, { lens: 'leads', ...fields });
    if (!response) throw new Error(JSON.stringify(err));
    return response.id as string;
  };
  const enrollment = async (leadId: string) =>
    (await mesh.query('sequences', 'SELECT status, stop_reason FROM enrollments WHERE lead_id = $1', [leadId]))[0];
  const outbox = async (type: string) => (await mesh.query('sequences', 'SELECT envelope FROM outbox WHERE type = $1 ORDER BY seq', [type])).map((r) => r.envelope);
  const state = async (mailboxId: string) => (await mesh.query('sequences', 'SELECT * FROM mailbox_imap_state WHERE mailbox_id = $1', [mailboxId]))[0];
  /** Two more completed polls of a mailbox (by either replica). */
  const twoMorePolls = async (mailboxId: string) => {
    for (let i = 0; i < 2; i++) {
      const before = (await state(mailboxId)).last_polled_at.getTime();
      await eventually('another poll', async () => (await state(mailboxId)).last_polled_at.getTime() > before, allowance(10_000));
    }
  };
  /** sequences_imap_messages_total by kind, summed over both replicas. */
  const handled = async () => {
    const totals: Record<string, number> = {};
    for (const app of [mesh.apps.get('sequences')!, second]) {
      if (app.child.exitCode !== null || app.child.signalCode !== null) continue; // killed: its counts went with it
      const text = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
      for (const m of text.matchAll(/^sequences_imap_messages_total\{([^}]*)\} (\d+)/gm)) {
        const kind = /kind="([^"]+)"/.exec(m[1])![1];
        totals[kind] = (totals[kind] ?? 0) + Number(m[2]);
      }
    }
    return totals;
  };
  const sequence = async (name: string, mailboxId: string) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify({
      name, mailbox_ids: [mailboxId],
      steps: [{ type: 'email', subject: 'One {{first_name|there}}', body: 'Hello. {{unsubscribe_url}}' }, { type: 'wait', wait_days: 3 },
        { type: 'email', subject: 'Two', body: 'Again. {{unsubscribe_url}}' }],
    }));
    const id = (await mesh.admin('sequence:create', '--workspace', ws, '--file', path)).id as string;
    await mesh.admin('sequence:launch', '--sequence', id);
    return id;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seq-imap-'));
    cert = await testCertificate();
    sink = await SmtpSink.start();
    imap = await ImapTestServer.start({ user: 'out@sender.test', pass: 'p@ss:word/1' });
    imaps = await ImapTestServer.start({ user: 'secure@sender.test', pass: 'tls-secret', tls: { cert: cert.cert, key: cert.key } });
    mesh = await TestMesh.start(['gateway', 'crm', 'sequences'], {
      SEQUENCES_TICK_MS: '50', SEQUENCES_IMAP_POLL_MS: String(POLL_MS), NODE_EXTRA_CA_CERTS: cert.caFile,
    });
    second = spawnApp('sequences', mesh.env, await freePort(), () => undefined);
    await waitFor('second sequences replica', () => httpReady(second.port), HARNESS.readyTimeoutMs);
    const made = await mesh.workspace();
    key = made.key;
    ws = made.workspace.id;
    const smtp = `smtp://127.0.0.1:${sink.port}`;
    const closedPort = await freePort();
    // two broken mailboxes first: their failures must not hold the others back
    mailboxes.badPassword = (await mesh.admin('mailbox:create', '--workspace', ws, '--email', 'wrong@sender.test', '--smtp-url', smtp, '--imap-url', imap.url('not-the-password'))).id;
    mailboxes.unreachable = (await mesh.admin('mailbox:create', '--workspace', ws, '--email', 'gone@sender.test', '--smtp-url', smtp, '--imap-url', `imap://u:p@127.0.0.1:${closedPort}`)).id;
    mailboxes.plain = (await mesh.admin('mailbox:create', '--workspace', ws, '--email', 'out@sender.test', '--smtp-url', smtp, '--imap-url', imap.url())).id;
    mailboxes.tls = (await mesh.admin('mailbox:create', '--workspace', ws, '--email', 'secure@sender.test', '--smtp-url', smtp, '--imap-url', imaps.url())).id;
  }, meshHookTimeoutMs(4)); // three apps and a second sequences replica
  afterAll(async () => {
    if (second) await stopApp(second, 3000);
    await mesh?.close();
    await Promise.all([sink?.close(), imap?.close(), imaps?.close()]);
    cert?.dispose();
  });

  it('a reply stops its enrollment (replied), a 5.x.x DSN bounces it, an out-of-office reply changes nothing; each message is fetched once across two replicas', async () => {
    const seq = await sequence('Imap', mailboxes.plain);
    const rita = await lead({ full_name: 'Rita Reply', first_name: 'Rita', email: 'rita@target.test' });
    const bo = await lead({ full_name: 'Bo Bounce', first_name: 'Bo', email: 'bo@target.test' });
    const otto = await lead({ full_name: 'Otto Away', first_name: 'Otto', email: 'otto@target.test' });
    expect((await mesh.request('POST', `/sequences/${seq}/enrollments`, { key, body: { lead_ids: [rita, bo, otto] } })).body.enrolled).toHaveLength(3);
    const [toRita, toBo, toOtto] = await Promise.all(['rita', 'bo', 'otto'].map((n) => eventually(`email to ${n}`, () => sink.to(`${n}@target.test`)[0])));
    // the first polls of the new mailbox have happened before anything arrives
    await eventually('first poll of the mailbox', async () => (await state(mailboxes.plain))?.last_polled_at);

    const reply = [ // no Message-ID of its own: the poller names it from mailbox, UIDVALIDITY and UID
      'From: Rita <rita@target.test>', 'To: out@sender.test', 'Subject: Re: One Rita', `In-Reply-To: ${toRita.messageId}`, `References: ${toRita.messageId}`,
      'Date: Sun, 22 Nov 2026 10:00:00 +0000', '', 'Sounds good, call me on Monday.', '', '> Hello.', '',
    ].join('\r\n');
    const dsn = [
      'From: Mail Delivery System <MAILER-DAEMON@mx.target.test>', 'To: out@sender.test', 'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0', 'Content-Type: multipart/report; report-type=delivery-status; boundary="B"', 'Message-ID: <dsn-imap-1@mx.target.test>', '',
      '--B', 'Content-Type: text/plain', '', 'Your message could not be delivered.', '',
      '--B', 'Content-Type: message/delivery-status', '', 'Reporting-MTA: dns; mx.target.test', '', 'Final-Recipient: rfc822; bo@target.test',
      'Action: failed', 'Status: 5.1.1', 'Diagnostic-Code: smtp; 550 5.1.1 <bo@target.test>: Recipient address rejected', '',
      '--B', 'Content-Type: text/rfc822-headers', '', `Message-ID: ${toBo.messageId}`, 'To: bo@target.test', 'Subject: One Bo', '', '--B--', '',
    ].join('\r\n');
    const ooo = [
      'From: Otto <otto@target.test>', 'To: out@sender.test', 'Subject: Abwesenheitsnotiz: One Otto', 'Auto-Submitted: auto-replied',
      `In-Reply-To: ${toOtto.messageId}`, 'Message-ID: <ooo-imap-1@target.test>', '', 'Ich bin bis Montag nicht im Büro.', '',
    ].join('\r\n');
    const stranger = ['From: someone@else.test', 'To: out@sender.test', 'Subject: Hello', 'Message-ID: <x-1@else.test>', '', 'Unrelated.', ''].join('\r\n');
    const uids = await imap.append(reply, dsn, ooo, stranger);
    expect(uids).toHaveLength(4);

    await eventually('rita replied', async () => (await enrollment(rita))?.stop_reason === 'replied');
    await eventually('bo bounced', async () => (await enrollment(bo))?.stop_reason === 'bounced');
    expect(await enrollment(rita)).toEqual({ status: 'stopped', stop_reason: 'replied' });
    expect(await enrollment(bo)).toEqual({ status: 'stopped', stop_reason: 'bounced' });
    await eventually('every message handled', async () => (await state(mailboxes.plain)).last_uid === String(Math.max(...uids)));
    await twoMorePolls(mailboxes.plain);
    expect(await enrollment(otto)).toEqual({ status: 'active', stop_reason: null });

    const replied = await outbox('email.replied');
    expect(replied).toHaveLength(1);
    expect(replied[0].data.object).toMatchObject({ direction: 'inbound', from: 'rita@target.test', lead_id: rita, sequence_id: seq, snippet: expect.stringContaining('Sounds good') });
    const bounced = await outbox('email.bounced');
    expect(bounced).toHaveLength(1);
    expect(bounced[0].data.object).toMatchObject({ direction: 'outbound', to: 'bo@target.test', snippet: expect.stringContaining('5.1.1') });
    await eventually('bo invalid in crm', async () => (await mesh.query('crm', 'SELECT email_status FROM leads WHERE id = $1', [bo]))[0].email_status === 'invalid');
    const sups = await mesh.request('GET', '/suppressions?q=bo@target', { key });
    expect(sups.body.data).toEqual([expect.objectContaining({ type: 'email', value: 'bo@target.test', reason: 'bounce', scope: 'workspace' })]);
    expect((await mesh.request('GET', `/sequences/${seq}`, { key })).body.stats).toMatchObject({ enrolled: 3, active: 1, sent: 3, replied: 1, bounced: 1 });

    // two replicas polled every 200 ms: each message was downloaded and handled exactly once
    expect([...imap.fetchCounts().entries()].sort((a, b) => a[0] - b[0])).toEqual(uids.map((u) => [u, 1]));
    expect(await handled()).toEqual({ reply: 1, hard_bounce: 1, auto_reply: 1, unmatched: 1 });
  });

  it('re-polling and a changed UIDVALIDITY (INBOX scanned again) handle nothing twice', async () => {
    const counted = await handled();
    const before = await state(mailboxes.plain);
    await twoMorePolls(mailboxes.plain);
    expect(await handled()).toEqual(counted);
    // the server renumbered INBOX (as after a restore): everything since the last poll is scanned again
    await mesh.query('sequences', `UPDATE mailbox_imap_state SET uid_validity = 999999, next_poll_at = now() WHERE mailbox_id = $1`, [mailboxes.plain]);
    await eventually('rescan', async () => Object.values(await handled()).reduce((a, b) => a + b, 0) >= 8);
    await eventually('rescan recorded', async () => (await state(mailboxes.plain)).last_uid === before.last_uid);
    expect(await handled()).toEqual({ reply: 2, hard_bounce: 2, auto_reply: 2, unmatched: 2 });
    expect(await outbox('email.replied')).toHaveLength(1);
    expect(await outbox('email.bounced')).toHaveLength(1);
    expect(await mesh.query('sequences', `SELECT count(*)::int AS n FROM email_messages WHERE direction = 'inbound'`)).toEqual([{ n: 1 }]);
    expect(await mesh.query('sequences', `SELECT count(*)::int AS n FROM suppressions WHERE reason = 'bounce'`)).toEqual([{ n: 1 }]);
    expect((await state(mailboxes.plain)).uid_validity).toBe(before.uid_validity);
  });

  it('imaps with a private CA trusted through NODE_EXTRA_CA_CERTS', async () => {
    const seq = await sequence('Secure', mailboxes.tls);
    const tess = await lead({ full_name: 'Tess Tls', first_name: 'Tess', email: 'tess@target.test' });
    await mesh.request('POST', `/sequences/${seq}/enrollments`, { key, body: { lead_ids: [tess] } });
    const sent = await eventually('email to tess', () => sink.to('tess@target.test')[0]);
    await imaps.append([
      'From: Tess <tess@target.test>', 'To: secure@sender.test', 'Subject: Re: One Tess', `In-Reply-To: ${sent.messageId}`, 'Message-ID: <tess-1@target.test>',
      '', 'Yes please.', '',
    ].join('\r\n'));
    await eventually('tess replied', async () => (await enrollment(tess))?.stop_reason === 'replied');
    expect((await state(mailboxes.tls)).last_error).toBeNull();
  });

  it("a mailbox that cannot be polled (bad credentials, unreachable) is logged with a growing delay and holds no other back", async () => {
    const bad = await state(mailboxes.badPassword);
    expect(bad.last_error).toMatch(/authentication failed/i);
    expect(bad.consecutive_failures).toBeGreaterThanOrEqual(1);
    expect(bad.uid_validity).toBeNull();
    expect(imap.logins).toContain('out@sender.test');
    // the failure count and the delay it set are read in one statement: a failure recorded between two reads
    // would raise the delay past the bound of the count read first
    const [gone] = await mesh.query('sequences', `SELECT *, extract(epoch FROM next_poll_at - now()) * 1000 AS wait_ms FROM mailbox_imap_state WHERE mailbox_id = $1`, [mailboxes.unreachable]);
    expect(gone.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(gone.last_polled_at).toBeNull();
    // the delay doubles with each failure: 200 ms, 400, 800, ...
    const failures = gone.consecutive_failures as number;
    expect(failures).toBeGreaterThanOrEqual(1);
    const wait_ms = gone.wait_ms;
    expect(Number(wait_ms)).toBeLessThanOrEqual(POLL_MS * 2 ** Math.min(failures - 1, 10) + 100);
    expect(failures).toBeLessThan(15); // not retried every 200 ms for the minute this file ran
    // the healthy mailboxes kept being polled meanwhile
    expect((await state(mailboxes.plain)).consecutive_failures).toBe(0);
  });

  it('a replica killed (SIGKILL) while polling: its lock goes with its connection and the other replica polls on', async () => {
    const seq = await sequence('Survivor', mailboxes.plain);
    const kim = await lead({ full_name: 'Kim Kill', first_name: 'Kim', email: 'kim@target.test' });
    await mesh.request('POST', `/sequences/${seq}/enrollments`, { key, body: { lead_ids: [kim] } });
    const sent = await eventually('email to kim', () => sink.to('kim@target.test')[0]);
    await mesh.killApp('sequences'); // polling every 200 ms: often mid-poll, holding the mailbox's lock
    const [uid] = await imap.append([
      'From: Kim <kim@target.test>', 'To: out@sender.test', 'Subject: Re: One Kim', `In-Reply-To: ${sent.messageId}`, 'Message-ID: <kim-1@target.test>',
      '', 'Interested.', '',
    ].join('\r\n'));
    await eventually('kim replied', async () => (await enrollment(kim))?.stop_reason === 'replied');
    // the poller records a message's UID after its handling commits (a replica killed between the
    // two handles it again, which changes nothing): the reply may be seen a moment before its UID
    await eventually('kim\'s UID recorded', async () => (await state(mailboxes.plain)).last_uid === String(uid));
    expect((await state(mailboxes.plain)).last_uid).toBe(String(uid));
    expect(imap.fetchCounts().get(uid)).toBe(1);
  });
});
