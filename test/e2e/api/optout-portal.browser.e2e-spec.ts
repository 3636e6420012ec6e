import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { CHROMIUM_ARGS, resolveChromium } from '../../support/browser';
import { eventually, SmtpSink } from '../../support/smtp-sink';

/** The DOM's form-field fields read in the page (the project's TypeScript has no DOM library). */
interface FormField { validity: { valid: boolean }; validationMessage: string }

/**
 * The public opt-out portal in a real headless browser (chromium driven by playwright-core, see
 * test/support/browser.ts for which one):
 * what a recipient sees and does, from the form to the mailed link to the confirmation.
 */
describe('opt-out portal in a browser', () => {
  const SECRET = 'browser-test-sequences-secret';
  let mesh: TestMesh;
  let sink: SmtpSink;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    mesh = await TestMesh.start(['gateway', 'crm', 'sequences'], {
      SEQUENCES_TICK_MS: '100', OPTOUT_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, OPTOUT_FROM: 'optout@platform.test', SEQUENCES_SECRET_KEY: SECRET,
    });
    const binary = await resolveChromium();
    browser = await chromium.launch({ executablePath: binary.executablePath, args: CHROMIUM_ARGS }).catch((err: Error) => {
      throw new Error(`chromium from ${binary.source} (${binary.executablePath}) did not start: ${err.message}`);
    });
  }, meshHookTimeoutMs(3));
  beforeEach(async () => {
    page = await (await browser.newContext()).newPage();
  });
  afterEach(async () => {
    await page?.context().close();
  });
  afterAll(async () => {
    await browser?.close();
    await mesh?.close();
    await sink?.close();
  });

  /** Links name PUBLIC_API_URL (the default port here): the same path on this mesh's gateway. */
  const local = (url: string) => `${mesh.baseUrl}${new URL(url).pathname.replace(/^\/api\/v1/, '')}`;
  const heading = () => page.getByRole('heading', { level: 1 }).textContent();
  const suppressions = () => mesh.query('sequences', 'SELECT workspace_id, scope, type, value, reason FROM suppressions');
  const optoutEvents = async () =>
    (await mesh.query('sequences', `SELECT envelope FROM outbox WHERE type = 'unsubscribe.created' ORDER BY envelope->>'workspace_id'`)).map((r) => r.envelope);
  /** A link as the portal signs it (same key as the mesh's), here with an expiry of our choosing. */
  const signedLink = (email: string, expiresAtS: number) => {
    const payload = `${Buffer.from(email).toString('base64url')}.${expiresAtS}`;
    return `${mesh.baseUrl}/optout/confirm/${payload}.${createHmac('sha256', `optout:${SECRET}`).update(payload).digest('base64url')}`;
  };

  it('type the address, get the mail, open its link, confirm: a global opt_out, unsubscribe.created to each workspace with the lead', async () => {
    // workspace A has the address as a lead enrolled in a sequence, B only as a lead, C not at all
    const a = await mesh.workspace();
    const b = await mesh.workspace();
    const c = await mesh.workspace();
    const mailbox = await mesh.admin('mailbox:create', '--workspace', a.workspace.id, '--email', 'sales@sender.test', '--smtp-url', `smtp://127.0.0.1:${sink.port}`);
    const path = join(mkdtempSync(join(tmpdir(), 'optout-')), 's.json');
    writeFileSync(path, JSON.stringify({ name: 'S', mailbox_ids: [mailbox.id], steps: [{ type: 'email', subject: 'Hi', body: 'x {{unsubscribe_url}}' }, { type: 'wait', wait_days: 5 }, { type: 'email', subject: 'Again', body: 'y {{unsubscribe_url}}' }] }));
    const seq = await mesh.admin('sequence:create', '--workspace', a.workspace.id, '--file', path);
    const leadA = await mesh.request('POST', '/leads', { key: a.key, body: { full_name: 'Pat Browser', email: 'pat@browser.test' } });
    expect((await mesh.request('POST', `/sequences/${seq.id}/enrollments`, { key: a.key, body: { lead_ids: [leadA.body.id] } })).body.enrolled).toHaveLength(1);
    expect((await mesh.request('POST', '/leads', { key: b.key, body: { full_name: 'Pat B', email: 'PAT@Browser.test' } })).status).toBe(201);
    expect((await mesh.request('POST', '/leads', { key: c.key, body: { full_name: 'Someone Else', email: 'other@browser.test' } })).status).toBe(201);

    // the form
    const form = await page.goto(`${mesh.baseUrl}/optout`);
    expect(form?.status()).toBe(200);
    expect(await heading()).toBe('Stop all outreach email');
    await page.getByLabel('Email address').fill('Pat@Browser.test');
    await Promise.all([page.waitForURL(/\/optout$/, { waitUntil: 'load' }), page.getByRole('button', { name: 'Send the link' }).click()]);
    expect(await heading()).toBe('Check your inbox');
    expect(await page.locator('body').textContent()).toContain('Pat@Browser.test');

    // the mail and its link
    const mail = await eventually('confirmation email', () => sink.to('pat@browser.test').find((m) => m.from === 'optout@platform.test'));
    expect(mail!.subject).toBe('Confirm your opt-out');
    const link = local(/https?:\/\/\S+\/optout\/confirm\/\S+/.exec(mail!.text)![0]);
    const confirmPage = await page.goto(link);
    expect(confirmPage?.status()).toBe(200);
    expect(await heading()).toBe('Confirm your opt-out');
    expect(await suppressions()).toEqual([]); // opening the link changes nothing (mail scanners open links)

    const confirmed = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Confirm: never email me' }).click();
    expect((await confirmed).status()).toBe(200);
    await page.waitForLoadState();
    expect(await heading()).toBe('You are opted out');

    expect(await suppressions()).toEqual([{ workspace_id: null, scope: 'global', type: 'email', value: 'pat@browser.test', reason: 'opt_out' }]);
    const [enrollment] = await mesh.query('sequences', 'SELECT status, stop_reason FROM enrollments WHERE lead_id = $1', [leadA.body.id]);
    expect(enrollment).toEqual({ status: 'stopped', stop_reason: 'unsubscribed' });
    const events = await optoutEvents();
    expect(events.map((e) => e.workspace_id)).toEqual([a.workspace.id, b.workspace.id].sort());
    for (const e of events) expect(e.data.object).toEqual(expect.objectContaining({ type: 'email', value: 'pat@browser.test', reason: 'opt_out', scope: 'global' }));
    // every workspace sees it, C too (global), though C is not told
    expect((await mesh.request('GET', '/suppressions', { key: c.key })).body.data.map((s: any) => s.value)).toEqual(['pat@browser.test']);

    // the link used again (back, confirm again): the same answer, nothing new
    await page.goBack();
    await page.getByRole('button', { name: 'Confirm: never email me' }).click();
    await page.waitForLoadState();
    expect(await heading()).toBe('You are opted out');
    expect(await suppressions()).toHaveLength(1);
    expect(await optoutEvents()).toHaveLength(2);
  });

  it('an invalid address: the browser refuses what is not an address, the portal says why it refuses the rest', async () => {
    const before = sink.mails.length;
    await page.goto(`${mesh.baseUrl}/optout`);
    const input = page.getByLabel('Email address');

    // not an address at all: the form does not leave the page, the browser flags the field
    await input.fill('nope');
    await page.getByRole('button', { name: 'Send the link' }).click();
    expect(await input.evaluate((el) => (el as unknown as FormField).validity.valid)).toBe(false);
    expect(await input.evaluate((el) => (el as unknown as FormField).validationMessage)).not.toBe('');
    expect(await heading()).toBe('Stop all outreach email');

    // an address the browser accepts but the portal does not (no dot in the domain): a 400 page with the reason
    await input.fill('pat@localhost');
    const refused = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send the link' }).click();
    expect((await refused).status()).toBe(400);
    await page.waitForLoadState();
    expect(await page.getByRole('alert').textContent()).toBe('This is not a valid email address. Check it and try again.');
    expect(await page.getByLabel('Email address').inputValue()).toBe('pat@localhost'); // kept, to correct it
    expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');

    expect(sink.mails.length).toBe(before);
  });

  it('a forged or an expired link: an error page, nothing created', async () => {
    const suppressionsBefore = await suppressions();
    const eventsBefore = (await optoutEvents()).length;
    const now = Math.floor(Date.now() / 1000);
    const valid = signedLink('forged@browser.test', now + 3600);
    const forged = valid.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')); // signature altered
    const tampered = signedLink('forged@browser.test', now + 3600).replace(Buffer.from('forged@browser.test').toString('base64url'), Buffer.from('other@browser.test').toString('base64url'));
    const expired = signedLink('late@browser.test', now - 60); // correctly signed, expired a minute ago

    for (const link of [forged, tampered, expired]) {
      await page.goto(link);
      expect(await heading()).toBe('Confirm your opt-out');
      const answer = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Confirm: never email me' }).click();
      expect((await answer).status()).toBe(404);
      await page.waitForLoadState();
      expect(await heading()).toBe('This link is not valid');
      expect(await page.getByRole('alert').textContent()).toContain('Nothing was changed');
    }
    expect(await suppressions()).toEqual(suppressionsBefore);
    expect(await optoutEvents()).toHaveLength(eventsBefore);

    // the error page leads back to the form to ask for a new link
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.waitForLoadState();
    expect(await heading()).toBe('Stop all outreach email');
    expect(page.url()).toBe(`${mesh.baseUrl}/optout`);
  });
});
