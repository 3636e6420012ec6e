import { Browser, chromium, Page } from 'playwright-core';
import { meshHookTimeoutMs, TestMesh } from '../harness';
import { CHROMIUM_ARGS, resolveChromium } from '../support/browser';
import { allowance } from '../support/timing';

/**
 * The reference page (/api/v1/docs) in a real headless browser (chromium driven by
 * playwright-core, see test/support/browser.ts): Redoc, served by the gateway, renders the
 * served document under the page's Content-Security-Policy, loading nothing from another origin.
 */
describe('the API reference page in a browser', () => {
  let mesh: TestMesh;
  let browser: Browser;
  let page: Page;
  let doc: any;
  /** Bytes of each response the page load received, by URL. */
  const received = new Map<string, number>();
  const blocked: string[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    doc = await (await fetch(`${mesh.baseUrl}/openapi.json`)).json();
    const binary = await resolveChromium();
    browser = await chromium.launch({ executablePath: binary.executablePath, args: CHROMIUM_ARGS }).catch((err: Error) => {
      throw new Error(`chromium from ${binary.source} (${binary.executablePath}) did not start: ${err.message}`);
    });
    page = await browser.newPage();
    page.on('response', async (response) => received.set(response.url(), (await response.body().catch(() => Buffer.alloc(0))).length));
    page.on('requestfailed', (request) => blocked.push(`${request.url()} (${request.failure()?.errorText})`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${mesh.baseUrl}/docs`);
    await page.waitForSelector('[data-section-id="operation/leads_create"]', { timeout: allowance(60_000) });
  }, meshHookTimeoutMs(2)); // and the browser, and the page rendered
  afterAll(async () => {
    await browser?.close();
    await mesh?.close();
  });

  /** Every operation of the document, webhooks included, as Redoc names their sections. */
  const operationIds = () => [
    ...Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops).map((op) => op.operationId)),
    ...Object.values<any>(doc.webhooks).map((hook) => hook.post.operationId),
  ];

  it('is served with a strict policy: scripts only from the gateway, no inline script', async () => {
    const res = await fetch(`${mesh.baseUrl}/docs`);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self';");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(policy).toContain("default-src 'none'");
    expect(await res.text()).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it('loads nothing from another origin: the page, its renderer and the document, from the gateway', () => {
    const origin = new URL(mesh.baseUrl).origin;
    const loaded = [...received.keys()].filter((url) => !url.startsWith('blob:'));
    expect(loaded.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(loaded).toEqual(expect.arrayContaining([`${mesh.baseUrl}/docs`, `${mesh.baseUrl}/docs/redoc.standalone.js`, `${mesh.baseUrl}/openapi.json`]));
    // the one thing Redoc asks another origin for, its footer's logo, is refused by the policy (and Redoc then hides it)
    expect(blocked).toEqual(blocked.length ? [expect.stringMatching(/^https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg \(csp\)$/)] : []);
    expect(violations.every((text) => text.includes('https://cdn.redoc.ly/redoc/logo-mini.svg'))).toBe(true);
  });

  it('weighs what docs/decisions.md records: HTML and script under 1.5 MB (styles come with the script)', () => {
    const html = received.get(`${mesh.baseUrl}/docs`)!;
    const script = received.get(`${mesh.baseUrl}/docs/redoc.standalone.js`)!;
    expect(html).toBeGreaterThan(0);
    expect(html + script).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('renders every operation and every webhook event of the document', async () => {
    const sections = new Set(await page.evaluate<string[]>('[...document.querySelectorAll("[data-section-id]")].map((e) => e.getAttribute("data-section-id"))'));
    const ids = operationIds();
    expect(ids.length).toBeGreaterThan(40);
    expect(ids.filter((id) => !sections.has(`operation/${id}`))).toEqual([]);
  });

  it('shows each operation its code samples: curl and the TypeScript client, from the recorded example', async () => {
    const section = page.locator('[data-section-id="operation/leads_create"]');
    await section.getByRole('tab', { name: 'curl' }).click();
    const curl = await section.locator('[role="tabpanel"]').filter({ hasText: 'curl -X POST' }).first().textContent();
    expect(curl).toContain("'http://127.0.0.1:3000/api/v1/leads'");
    expect(curl).toContain('Authorization: Bearer $LIM_API_KEY');
    expect(curl).toContain('Ada Lovelace');
    await section.getByRole('tab', { name: 'TypeScript client' }).click();
    const typescript = await section.locator('[role="tabpanel"]').filter({ hasText: 'LeadIntelClient' }).first().textContent();
    expect(typescript).toContain("client.api.POST('/leads'");
  });

  it('renders the recorded examples, the webhook payloads and the error catalogue links', async () => {
    const text = (await page.textContent('body')) ?? '';
    expect(text).toContain('"credits.low"');
    expect(text).toContain('entity_id');
    expect(await page.locator(`a[href="${doc.externalDocs.url}#not_found"]`).count()).toBeGreaterThan(0);
  });

  it('finds operations and events by search', async () => {
    await page.fill('input[placeholder="Search..."]', 'reveal');
    const results = page.locator('[data-role="search:results"]');
    await results.getByText('Reveal a search result').waitFor({ timeout: allowance(15_000) });
    expect(await results.getByText('Event reveal.completed').count()).toBe(1);
  });
});
