import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceName } from '@app/contracts/subjects';
import { kustomize, Obj } from '../deploy/render';
import { meshHookTimeoutMs, TestMesh } from '../harness';

const ROOT = join(__dirname, '..', '..');
const SCRAPED: ServiceName[] = ['gateway', 'crm', 'webhooks', 'sequences'];

async function metricsOf(mesh: TestMesh, service: ServiceName): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${mesh.apps.get(service)!.port}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** Series names a scrape exposes: each `# TYPE`, with a histogram's _bucket, _count and _sum. */
function seriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(name + suffix);
  }
  return names;
}

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'le']);

/** The metric names an expression reads: identifiers outside label matchers, grouping clauses, ranges and strings, that are no function. */
function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(\s*\()?/g)]
    .filter(([, name, call]) => !call && !PROMQL_WORDS.has(name) && !/^\d/.test(name) && name.includes('_'))
    .map(([, name]) => name);
}

/** Series the docs name: the first column of observability.md's metrics table, and any `…_total`/`…_seconds` anywhere in docs/. */
function documentedNames(): string[] {
  const names = new Set<string>();
  const observability = readFileSync(join(ROOT, 'docs', 'observability.md'), 'utf8');
  const table = observability.slice(observability.indexOf('## Metrics'));
  for (const [, cell] of table.matchAll(/^\| `([a-z0-9_]+)` \|/gm)) names.add(cell);
  for (const file of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, 'docs', file), 'utf8');
    for (const [, name] of text.matchAll(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:total|seconds))(?:\{[^`]*\})?`/g)) names.add(name);
  }
  return [...names];
}

/** Metrics an on-call needs, on a running mesh, and alerts, dashboard and docs that name only series the services expose. */
describe('metrics: backlogs, consumer lag, pool; alerts and docs name real series', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    // crm runs no export worker: a queued export stays queued, and the gauge shows it
    mesh = await TestMesh.start(SCRAPED, { EXPORT_WORKER_CONCURRENCY: '0' });
  }, meshHookTimeoutMs(SCRAPED.length));
  afterAll(() => mesh?.close());

  it('each service reports its pool, its durable consumers\' lag and its backlog', async () => {
    const text = Object.fromEntries(await Promise.all(SCRAPED.map(async (s) => [s, await metricsOf(mesh, s)] as const)));
    for (const service of SCRAPED) {
      expect(text[service]).toMatch(new RegExp(`^pg_pool_connections_in_use\\{service="${service}"\\} \\d+$`, 'm'));
      expect(text[service]).toMatch(new RegExp(`^pg_pool_connections_idle\\{service="${service}"\\} \\d+$`, 'm'));
      expect(text[service]).toMatch(new RegExp(`^pg_pool_waiting_clients\\{service="${service}"\\} \\d+$`, 'm'));
    }
    for (const name of ['pending', 'ack_pending', 'redelivered']) {
      expect(text.webhooks).toMatch(new RegExp(`^jetstream_consumer_${name}_messages\\{consumer="webhooks-dispatcher",service="webhooks"\\} \\d+$`, 'm'));
    }
    expect(text.webhooks).toMatch(/^webhook_deliveries_due\{service="webhooks"\} 0$/m);
    expect(text.sequences).toMatch(/^sequences_enrollments_due\{service="sequences"\} 0$/m);
    expect(text.crm).toMatch(/^exports_queued\{service="crm"\} \d+$/m);
  });

  it('the export queue gauge counts a queued export', async () => {
    const queued = async () => Number(/^exports_queued\{service="crm"\} (\d+)$/m.exec(await metricsOf(mesh, 'crm'))?.[1]);
    const before = await queued();
    const { key } = await mesh.workspace();
    const res = await mesh.request('POST', '/exports', { key, body: { format: 'csv' } });
    expect(res.status).toBe(202);
    expect(await queued()).toBe(before + 1);
  });

  it('every alert and dashboard panel reads series the services expose, and every alert has its runbook', async () => {
    const exposed = new Set<string>();
    for (const service of SCRAPED) for (const name of seriesNames(await metricsOf(mesh, service))) exposed.add(name);

    const rendered = kustomize(join(ROOT, 'k8s', 'examples', 'monitoring'));
    const rules: Obj[] = rendered.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => o.spec.groups.flatMap((g: Obj) => g.rules));
    expect(rules.length).toBeGreaterThanOrEqual(8);
    const dashboard = JSON.parse(rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1')!.data['lim-dashboard.json']);
    const panelExprs: string[] = dashboard.panels.flatMap((p: Obj) => p.targets.map((t: Obj) => t.expr));
    expect(panelExprs.length).toBeGreaterThan(0);

    const unknown = [...rules.map((r) => String(r.expr)), ...panelExprs]
      .flatMap((expr) => metricNamesOf(expr).filter((name) => !exposed.has(name)).map((name) => `${name} in ${expr}`));
    expect(unknown).toEqual([]);

    const runbooks = readFileSync(join(ROOT, 'docs', 'runbooks.md'), 'utf8');
    const anchors = new Set([...runbooks.matchAll(/^## (\S+)$/gm)].map(([, heading]) => heading.toLowerCase()));
    for (const rule of rules) {
      expect({ alert: rule.alert, runbook: rule.annotations?.runbook_url }).toEqual({ alert: rule.alert, runbook: `docs/runbooks.md#${String(rule.alert).toLowerCase()}` });
      expect(anchors.has(String(rule.alert).toLowerCase())).toBe(true);
    }
    expect(anchors.size).toBe(rules.length);
  });

  it('every series the docs name exists', async () => {
    const exposed = new Set<string>();
    for (const service of SCRAPED) for (const name of seriesNames(await metricsOf(mesh, service))) exposed.add(name);
    const documented = documentedNames();
    expect(documented.length).toBeGreaterThan(15);
    expect(documented.filter((name) => !exposed.has(name))).toEqual([]);
  });
});
