import { Client } from 'pg';
import { SERVICE_NAMES, type ServiceName, SUBJECTS } from '@app/contracts/subjects';
import { WARM_UP_WORKSPACE } from '@app/platform/warm-up';
import { CRM_WARM_UP } from '../../../apps/crm/src/warm-up';
import { BILLING_WARM_UP } from '../../../apps/billing/src/warm-up';
import { GATEWAY_WARM_UP } from '../../../apps/gateway/src/warm-up';
import { SEARCH_WARM_UP } from '../../../apps/search/src/warm-up';
import { SEQUENCES_WARM_UP } from '../../../apps/sequences/src/warm-up';
import { WEBHOOKS_WARM_UP } from '../../../apps/webhooks/src/warm-up';
import { freePort, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { HARNESS, TestMesh } from '../../harness';

/**
 * Restarts do not spike latency (issue 35, item 4): a (re)started process opens its pool and asks
 * one request of each kind it serves of its own handlers, against its database, before it joins
 * its queue groups and answers ready; its writes roll back, so the reserved workspace has no row
 * anywhere after; and a warm-up that cannot finish (its database holds a lock it waits on) keeps
 * the process out of its queue groups only until WARM_UP_DEADLINE_MS.
 */
const LISTS: Record<ServiceName, readonly ({ subject: string } | { name: string })[]> = {
  gateway: GATEWAY_WARM_UP, crm: CRM_WARM_UP, billing: BILLING_WARM_UP, search: SEARCH_WARM_UP, sequences: SEQUENCES_WARM_UP, webhooks: WEBHOOKS_WARM_UP,
};

async function metrics(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/** A metric's value (its first sample matching `labels`), undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** The outcomes of one warm-up call, from the process's metrics. */
function outcomesOf(text: string, call: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const outcome of ['answered', 'rolled_back', 'failed', 'deadline']) {
    const n = sample(text, 'warm_up_calls_total', { call, outcome });
    if (n) found[outcome] = n;
  }
  return found;
}

describe('a (re)started process warms its paths before it joins its queue groups (e2e)', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    // a warm-up of its own on a loaded machine may take seconds: the bound is raised to half the harness's readiness wait, so every call ends (a call that hangs shows as cut short)
    mesh = await TestMesh.start([...SERVICE_NAMES], { WARM_UP_DEADLINE_MS: String(HARNESS.readyTimeoutMs / 2) });
  }, HARNESS.readyTimeoutMs * 3);
  afterAll(async () => {
    await mesh?.close();
  });

  it.each([...SERVICE_NAMES])('%s asks each request of its warm-up list, then joins its queue groups once', async (name) => {
    const text = await metrics(mesh.apps.get(name)!.port);
    for (const call of LISTS[name]) {
      const label = 'subject' in call ? call.subject : call.name;
      const outcomes = outcomesOf(text, label);
      // once, answered (a value or a domain error) or rolled back: not failed, not cut short
      const served = (outcomes.answered ?? 0) + (outcomes.rolled_back ?? 0);
      const others = Object.keys(outcomes).filter((o) => o !== 'answered' && o !== 'rolled_back');
      expect({ call: label, served, others }).toEqual({ call: label, served: 1, others: [] });
    }
    // the first join after the warm-up ended (a database probe that failed under load may make it leave and join again later)
    const finished = sample(text, 'warm_up_finished_timestamp_seconds');
    const joined = sample(text, 'rpc_queue_groups_first_joined_timestamp_seconds');
    expect(finished).toBeGreaterThan(0);
    expect(joined).toBeGreaterThanOrEqual(finished!);
    expect(sample(text, 'rpc_queue_group_joins_total')).toBeGreaterThanOrEqual(1);
  });

  it("crm's keyed create and reveal upsert run their statements and roll back", async () => {
    const text = await metrics(mesh.apps.get('crm')!.port);
    expect(outcomesOf(text, SUBJECTS.crm.leadsCreate)).toEqual({ rolled_back: 1 });
    expect(outcomesOf(text, SUBJECTS.crm.leadsUpsertFromReveal)).toEqual({ rolled_back: 1 });
  });

  it('leaves no row of the reserved workspace in any database', async () => {
    const left: string[] = [];
    for (const name of SERVICE_NAMES) {
      const tables = await mesh.query<{ table_name: string }>(name,
        `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'workspace_id'`);
      for (const { table_name } of tables) {
        const [{ n }] = await mesh.query<{ n: number }>(name, `SELECT count(*)::int AS n FROM "${table_name}" WHERE workspace_id = $1`, [WARM_UP_WORKSPACE]);
        if (n > 0) left.push(`${name}.${table_name}: ${n}`);
      }
      const [{ n }] = await mesh.query<{ n: number }>(name, `SELECT count(*)::int AS n FROM outbox WHERE envelope->>'workspace_id' = $1`, [WARM_UP_WORKSPACE]).catch(() => [{ n: 0 }]);
      if (n > 0) left.push(`${name}.outbox: ${n}`);
    }
    expect(left).toEqual([]);
  });

  describe('a restarted crm whose warm-up waits on a lock', () => {
    let lock: Client;
    let crm: RunningApp | undefined;

    beforeAll(async () => {
      await mesh.stopApp('crm');
      lock = new Client({ connectionString: mesh.databaseUrl('crm') });
      await lock.connect();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE leads IN ACCESS EXCLUSIVE MODE');
    });
    afterAll(async () => {
      await lock?.query('ROLLBACK').catch(() => undefined);
      await lock?.end();
      if (crm) await stopApp(crm, HARNESS.stopGraceMs);
    });

    it('stays out of its queue groups and unready while it warms up, and joins at WARM_UP_DEADLINE_MS however long the lock is held', async () => {
      const deadlineMs = 5000;
      const lines: string[] = [];
      crm = spawnApp('crm', { ...mesh.appEnv('crm'), WARM_UP_DEADLINE_MS: String(deadlineMs), LOG_LEVEL: 'info' }, await freePort(), (line) => lines.push(line));
      const port = crm.port;
      const live = async () => (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => undefined))?.status === 200;
      await waitFor('crm answering HTTP', live, HARNESS.readyTimeoutMs, HARNESS.readyPollMs);

      // warming up (its lead reads wait on the lock): not ready, and no responder on its subjects
      const warming = lines.some((l) => l.includes('warm-up done')) ? undefined : await Promise.all([
        fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.status),
        mesh.natsClient().then((nc) => nc.request(SUBJECTS.crm.leadsList, JSON.stringify({ id: '1', pattern: SUBJECTS.crm.leadsList, data: {} }), { timeout: 1000 })
          .then(() => 'answered', (err: Error) => err.message)),
      ]);
      if (warming) {
        expect(warming[0]).toBe(503);
        expect(warming[1]).toMatch(/503|no responders/i);
      }

      // the lock is still held: the deadline, not the lock, lets it join
      await waitFor('crm ready', async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200, HARNESS.readyTimeoutMs, HARNESS.readyPollMs);
      const text = await metrics(port);
      expect(sample(text, 'warm_up_calls_total', { call: SUBJECTS.crm.leadsList, outcome: 'deadline' })).toBe(1);
      expect(sample(text, 'warm_up_duration_seconds')).toBeGreaterThanOrEqual(deadlineMs / 1000);
      expect(sample(text, 'rpc_queue_groups_first_joined_timestamp_seconds')).toBeGreaterThanOrEqual(sample(text, 'warm_up_finished_timestamp_seconds')!);
      expect(lines.some((l) => l.includes('warm-up cut short by its deadline'))).toBe(true);
      expect(warming).toBeDefined();
    });
  });
});
