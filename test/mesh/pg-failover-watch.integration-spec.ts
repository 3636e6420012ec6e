import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { CNPG_FAILOVER_DEFAULTS, detectionOfCluster, failoverWatchSettings, FailoverWatchSettings, PgPair, SHIPPED_FAILOVER_DETECTION, writesAccepted } from '../../tools/mesh/pg-pair';
import { freePort } from '../../tools/mesh/processes';
import { allowance } from '../support/timing';

/**
 * The cluster run's PostgreSQL pair fails over as CloudNativePG does (issue 35, item 6): a
 * watcher probes the primary and promotes the standby only once it has failed its probes
 * `failureThreshold` times in a row; stopping the primary is all a fault does. The test runs the
 * watcher with short probes (its settings, as an operator sets them) so it waits seconds, not
 * CloudNativePG's 20-30 s.
 */
describe('the PostgreSQL pair fails over when its watcher sees the primary stop answering', () => {
  let dir: string;
  let pair: PgPair;
  const settings: FailoverWatchSettings = { probeIntervalMs: 300, probeTimeoutMs: 1000, failureThreshold: 3, failoverDelayMs: 0 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'failover-watch-'));
    chmodSync(dir, 0o755);
    pair = await PgPair.start(join(dir, 'pg'), { primary: await freePort(), standby: await freePort(), rw: await freePort(), ro: await freePort() });
    const admin = new Client({ connectionString: pair.rwUrl });
    await admin.connect();
    await admin.query('CREATE TABLE marks (n int PRIMARY KEY)');
    await admin.query('INSERT INTO marks VALUES (1)');
    await admin.end();
  });

  afterAll(async () => {
    await pair?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("defaults to the shipped CloudNativePG examples' readiness probe and failover delay (read from their one file), CloudNativePG's own where the file sets none", () => {
    expect(failoverWatchSettings({})).toEqual(SHIPPED_FAILOVER_DETECTION);
    expect(SHIPPED_FAILOVER_DETECTION).toEqual({ probeIntervalMs: 2000, probeTimeoutMs: 2000, failureThreshold: 3, failoverDelayMs: 0 });
    expect(detectionOfCluster({ spec: {} })).toEqual(CNPG_FAILOVER_DEFAULTS);
    expect(CNPG_FAILOVER_DEFAULTS).toEqual({ probeIntervalMs: 10_000, probeTimeoutMs: 5000, failureThreshold: 3, failoverDelayMs: 0 });
    expect(detectionOfCluster({ spec: { failoverDelay: 7, probes: { readiness: { periodSeconds: 4 } } } })).toEqual({ probeIntervalMs: 4000, probeTimeoutMs: 5000, failureThreshold: 3, failoverDelayMs: 7000 });
    expect(failoverWatchSettings({ PG_PAIR_PROBE_INTERVAL_MS: '1000', PG_PAIR_FAILURE_THRESHOLD: '5' })).toMatchObject({ probeIntervalMs: 1000, failureThreshold: 5 });
    expect(() => failoverWatchSettings({ PG_PAIR_FAILURE_THRESHOLD: '0' })).toThrow(/PG_PAIR_FAILURE_THRESHOLD/);
  });

  it('leaves a primary that answers alone, and promotes the standby only after the threshold of failed probes once it stops', async () => {
    const standbyPort = pair.standby!.port;
    const watch = pair.watch(settings);
    let promoted: number | undefined;
    void watch.failedOver().then((f) => (promoted = f.promotedAt));

    // a primary that answers: many probes, no failover
    await new Promise((resolve) => setTimeout(resolve, settings.probeIntervalMs * (settings.failureThreshold + 2)));
    expect(promoted).toBeUndefined();
    expect(pair.primary.port).not.toBe(standbyPort);

    // the fault stops the primary and nothing else
    const stopping = Date.now();
    await pair.stopPrimary();
    const failover = await watch.failedOver();
    // the first failed probe after the stop began, then threshold - 1 more, an interval apart at least
    expect(failover.firstFailedAt).toBeGreaterThanOrEqual(stopping);
    expect(failover.detectedAt - failover.firstFailedAt).toBeGreaterThanOrEqual(settings.probeIntervalMs * (settings.failureThreshold - 1) - 5);
    expect(failover.failedProbes).toBe(settings.failureThreshold);
    expect(failover.promotedAt).toBeGreaterThanOrEqual(failover.detectedAt);
    expect(pair.primary.port).toBe(standbyPort);
    expect(pair.standby).toBeUndefined();

    // rw leads to the new primary: it takes writes, and what the old one acknowledged is there
    await writesAccepted(pair.rwUrl, allowance(10_000));
    const db = new Client({ connectionString: pair.rwUrl });
    await db.connect();
    try {
      await db.query('INSERT INTO marks VALUES (2)');
      expect((await db.query('SELECT n FROM marks ORDER BY n')).rows.map((r) => r.n)).toEqual([1, 2]);
    } finally {
      await db.end();
    }
  });
});
