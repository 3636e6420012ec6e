import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { eventSubject } from '@app/contracts';
import { newId } from '@app/platform';
import { HttpsReceiver, ReceivedRequest, testCertificate } from '../webhooks/https-receiver';
import { percentile, startBenchMesh } from './bench-mesh';

const PACED_RATE = Number(process.env.BENCH_WEBHOOK_RATE || 1000);
const PACED_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS || 10);
const BURST = Number(process.env.BENCH_WEBHOOK_BURST || 20_000);
/** Seconds at the paced rate before the paced run is measured (after 200 events one at a time). */
const WARMUP_SECONDS = Number(process.env.BENCH_WEBHOOK_WARMUP_SECONDS || 0);

/** The goals (docs/benchmarks.md): 1,000 signed deliveries/s with event-to-delivery p99 under 500 ms at that rate; a slow receiver not slowing a fast one. */
const GOAL_RATE = 1000;
const GOAL_P99_MS = 500;
const met = (ok: boolean | undefined) => (ok === undefined ? 'NOT DECIDED' : ok ? 'MET' : 'NOT MET');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `npm run bench -- webhooks`: the gateway and the webhooks service with a local HTTPS receiver
 * (self-signed certificate trusted through NODE_EXTRA_CA_CERTS). Events go straight into the
 * JetStream stream as any service's outbox relay publishes them; latency is from the event's
 * `created` to its arrival at the receiver (same machine, same clock).
 * 1. paced: PACED_RATE events/s for PACED_SECONDS to one fast endpoint: deliveries/s, p50/p99.
 * 2. burst: BURST events published at once: deliveries/s until the receiver has them all.
 * 3. slow and fast: one endpoint answering after 9 s and one answering at once, both subscribed
 *    to every event, 200 events/s for 10 s: the fast one's p99.
 */
export async function runWebhooksBench(): Promise<void> {
  const cert = await testCertificate();
  const receiver = await HttpsReceiver.start(cert);
  const mesh = await startBenchMesh(['gateway', 'webhooks'], {
    NODE_EXTRA_CA_CERTS: cert.caFile,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
  });
  say(`goals: ${GOAL_RATE} signed deliveries/s with event-to-delivery p99 < ${GOAL_P99_MS} ms at that rate (every event delivered); ` +
    `a receiver answering after 9 s not slowing a fast one (the fast one gets every event, p99 < ${GOAL_P99_MS} ms)`);
  const verdicts: string[] = [];
  const nc = await connect(mesh.probeOptions);
  const js = jetstream(nc);
  const pg = new Client({ connectionString: mesh.databaseUrl('webhooks') });
  await pg.connect();
  try {
    const endpoint = (key: string, path: string) => {
      return fetch(`${mesh.apiBase}/webhook_endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url(path), events: ['*'] }),
      }).then(async (r) => {
        if (r.status !== 201) throw new Error(`POST /webhook_endpoints: ${r.status} ${await r.text()}`);
      });
    };
    const workspace = (name: string) => {
      const ws = mesh.admin('workspace:create', '--name', name);
      return { id: ws.id as string, key: mesh.admin('key:create', '--workspace', ws.id, '--mode', 'live').key as string };
    };
    const publish = (workspaceId: string) => {
      const id = newId('evt_');
      const envelope = {
        id, object: 'event', type: 'lead.created', api_version: '2026-09-28', created: new Date().toISOString(), workspace_id: workspaceId,
        livemode: true, data: { object: { id: newId('lead_'), object: 'lead', full_name: 'Bench Lead', email: 'bench@example.com' } },
      };
      return js.publish(eventSubject('lead.created'), JSON.stringify(envelope), { msgID: id }).then(() => id);
    };
    const latencies = (path: string, from = 0) =>
      receiver.at(path).slice(from).map((r: ReceivedRequest) => r.receivedAt - Date.parse(JSON.parse(r.rawBody).created));
    // TLS connections the receiver accepted (the probe prints how many each scenario opened)
    let connections = 0;
    (receiver as unknown as { server: import('node:https').Server }).server.on('secureConnection', () => connections++);
    const distinct = new Map<string, Set<string>>();
    receiver.on((r) => {
      const set = distinct.get(r.path) ?? new Set<string>();
      set.add(JSON.parse(r.rawBody).id);
      distinct.set(r.path, set);
    });
    const reset = () => {
      receiver.received.length = 0;
      distinct.clear();
    };
    const waitCount = async (path: string, n: number, timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      while ((distinct.get(path)?.size ?? 0) < n && Date.now() < until) await sleep(20);
      return distinct.get(path)?.size ?? 0;
    };
    /** Where the time of each delivery went: fan-out commit, claim, the request, recording; and p99 per second of the run. */
    const stages = async (path: string) => {
      const { rows } = await pg.query<{ event_id: string; created: number; fanned: number; attempted: number; latency_ms: number }>(
        `SELECT d.event_id, extract(epoch FROM d.event_created) * 1000 AS created, extract(epoch FROM d.created_at) * 1000 AS fanned,
                extract(epoch FROM a.attempted_at) * 1000 AS attempted, a.latency_ms
         FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1`,
      );
      const byEvent = new Map(rows.map((r) => [r.event_id, r]));
      const fan: number[] = [], toReceiver: number[] = [], rtt: number[] = [], recorded: number[] = [];
      const perSecond = new Map<number, number[]>();
      for (const r of receiver.at(path)) {
        const row = byEvent.get(JSON.parse(r.rawBody).id);
        if (!row) continue;
        const created = Number(row.created);
        fan.push(Number(row.fanned) - created);
        toReceiver.push(r.receivedAt - Number(row.fanned));
        rtt.push(row.latency_ms);
        recorded.push(Number(row.attempted) - r.receivedAt);
        const second = Math.floor((created - Number(rows[0].created)) / 1000);
        perSecond.set(second, [...(perSecond.get(second) ?? []), r.receivedAt - created]);
      }
      const p = (xs: number[]) => `p50 ${Math.round(percentile(xs, 50))} / p99 ${Math.round(percentile(xs, 99))} ms`;
      say(`  probe: event -> fan-out tx ${p(fan)}; fan-out tx -> receiver ${p(toReceiver)}; request round trip ${p(rtt)}; receiver -> outcome tx ${p(recorded)}`);
      say(`  probe: ${connections} TLS connections accepted so far`);
      say(`  probe: p99 per second ${[...perSecond].sort((a, b) => a[0] - b[0]).map(([, xs]) => Math.round(percentile(xs, 99))).join(' ')}`);
    };
    const paced = async (workspaceId: string, rate: number, seconds: number) => {
      const total = rate * seconds;
      const started = Date.now();
      const pending: Promise<string>[] = [];
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / rate;
        const wait = due - Date.now();
        if (wait > 1) await sleep(wait);
        pending.push(publish(workspaceId));
      }
      await Promise.all(pending);
      return total;
    };

    // warm-up: connections, JIT, consumer
    const main = workspace('bench-webhooks');
    await endpoint(main.key, '/fast');
    for (let i = 0; i < 200; i++) await publish(main.id);
    await waitCount('/fast', 200, 30_000);
    if (WARMUP_SECONDS > 0) {
      reset();
      const n = await paced(main.id, PACED_RATE, WARMUP_SECONDS);
      await waitCount('/fast', n, 60_000);
    }
    if (process.env.BENCH_WEBHOOK_PROBE) say(`  probe: warm-up done, ${connections} TLS connections accepted`);
    reset();

    say(`webhooks: paced ${PACED_RATE} events/s for ${PACED_SECONDS} s to one HTTPS endpoint`);
    let t0 = Date.now();
    const sent = await paced(main.id, PACED_RATE, PACED_SECONDS);
    let got = await waitCount('/fast', sent, 60_000);
    let elapsed = (Math.max(...receiver.at('/fast').map((r) => r.receivedAt)) - t0) / 1000;
    let lat = latencies('/fast');
    say(`  sent ${sent}, received ${got} distinct (${receiver.at('/fast').length} requests), ${(got / elapsed).toFixed(0)} deliveries/s`);
    say(`  event-to-delivery p50 ${percentile(lat, 50)} ms, p99 ${percentile(lat, 99)} ms, max ${Math.max(...lat)} ms`);
    verdicts.push(`${GOAL_RATE} deliveries/s with p99 < ${GOAL_P99_MS} ms -> paced ${PACED_RATE}/s, ${got} of ${sent} delivered, p99 ${percentile(lat, 99)} ms ` +
      `${met(PACED_RATE < GOAL_RATE ? undefined : got === sent && percentile(lat, 99) < GOAL_P99_MS)}${PACED_RATE < GOAL_RATE ? ` (paced below ${GOAL_RATE}/s)` : ''}`);
    if (process.env.BENCH_WEBHOOK_PROBE) await stages('/fast');
    reset();

    say(`webhooks: burst of ${BURST} events published at once`);
    t0 = Date.now();
    const ids: Promise<string>[] = [];
    for (let i = 0; i < BURST; i++) ids.push(publish(main.id));
    await Promise.all(ids);
    const published = (Date.now() - t0) / 1000;
    const probe = process.env.BENCH_WEBHOOK_PROBE ? setInterval(() => {
      void pg.query(`SELECT count(*)::int AS rows, count(*) FILTER (WHERE status = 'succeeded')::int AS done FROM webhook_deliveries`)
        .then(({ rows: r }) => say(`  +${((Date.now() - t0) / 1000).toFixed(0)} s: ${r[0].rows} delivery rows, ${r[0].done} succeeded, ${distinct.get('/fast')?.size ?? 0} received`));
    }, 2000) : undefined;
    got = await waitCount('/fast', BURST, 120_000);
    clearInterval(probe);
    elapsed = (Math.max(...receiver.at('/fast').map((r) => r.receivedAt)) - t0) / 1000;
    say(`  published in ${published.toFixed(1)} s; received ${got} distinct of ${BURST} in ${elapsed.toFixed(1)} s: ${(got / elapsed).toFixed(0)} deliveries/s`);
    reset();

    say('webhooks: one receiver answering after 9 s, another at once; 200 events/s for 10 s to both');
    receiver.respond('/slow', () => ({ status: 200, delayMs: 9000 }));
    const mixed = workspace('bench-webhooks-mixed');
    await endpoint(mixed.key, '/fast2');
    await endpoint(mixed.key, '/slow');
    const sent2 = await paced(mixed.id, 200, 10);
    got = await waitCount('/fast2', sent2, 30_000);
    lat = latencies('/fast2');
    say(`  fast: received ${got} of ${sent2}, p50 ${percentile(lat, 50)} ms, p99 ${percentile(lat, 99)} ms; slow: ${receiver.at('/slow').length} requests answered or in flight so far`);
    verdicts.push(`fast beside slow -> ${got} of ${sent2}, p99 ${percentile(lat, 99)} ms ${met(got === sent2 && percentile(lat, 99) < GOAL_P99_MS)}`);
    say(`verdict: ${verdicts.join('; ')}`);
  } finally {
    await nc.close().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await mesh.close();
    await receiver.close();
    cert.dispose();
  }
}
