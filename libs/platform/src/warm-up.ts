import { INestApplication, Injectable } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { Pool, PoolClient } from 'pg';
import { Logger } from 'pino';
import { isObservable, lastValueFrom } from 'rxjs';
import { CURRENT_API_VERSION, LENSES, RequestContext } from '@app/contracts';
import { withDeadline } from './database-watch';
import { counter, gauge } from './metrics';
import { NatsRpcServer } from './nats-rpc.server';
import { warmUpScope as scope, WarmUpRollback } from './warm-up-scope';

/**
 * The workspace every warm-up request is asked for. No id `newId` makes is this short, so no
 * workspace, key or row of a customer ever has it: its reads find nothing, and the writes a
 * warm-up request makes are rolled back (inWarmUp).
 */
export const WARM_UP_WORKSPACE = 'ws_warmup';

/** An id of `prefix` that names nothing (as WARM_UP_WORKSPACE: shorter than any id `newId` makes). */
export const warmUpId = (prefix: string) => `${prefix}warmup`;

/**
 * One request of a kind the service serves, asked before the process joins its queue groups:
 * either a NATS request (`subject`, `body`, the context of WARM_UP_WORKSPACE with `ctx` on top)
 * handed to the service's own handler in-process, through Nest's whole pipeline (guards, pipes,
 * filters) as NatsRpcServer hands it a request off the bus, or a function of the application (a
 * gateway's key look-up, which no NATS subject serves).
 */
export type WarmUpCall =
  | { subject: string; body?: unknown; ctx?: Partial<RequestContext> }
  | { name: string; run: (app: INestApplication) => Promise<unknown> };

/** How a warm-up call ended: `answered` (a value or a domain error: not found, insufficient credits), `rolled_back` (its transaction, as every warm-up write), `failed`, or `deadline` (still running when the warm-up's deadline came). */
export type WarmUpOutcome = 'answered' | 'rolled_back' | 'failed' | 'deadline';

const calls = counter('warm_up_calls_total', 'Warm-up requests a process asked of its own handlers before joining its queue groups, by call and outcome', ['call', 'outcome']);
const finishedAt = gauge('warm_up_finished_timestamp_seconds', 'When the warm-up ended (Unix time): the process joins its queue groups and answers ready after it', []);
const duration = gauge('warm_up_duration_seconds', 'How long the warm-up took, up to WARM_UP_DEADLINE_MS', []);

/** Whether a start-up warm-up has ended: `/health/ready` answers ready only after it (HealthController). */
@Injectable()
export class WarmUpState {
  private ended = false;

  get done(): boolean {
    return this.ended;
  }

  end(): void {
    this.ended = true;
  }
}

/** The context of a warm-up request: WARM_UP_WORKSPACE, a test key of the agency plan with every lens. */
export function warmUpContext(overrides: Partial<RequestContext> = {}): RequestContext {
  return {
    request_id: warmUpId('req_'),
    workspace_id: WARM_UP_WORKSPACE,
    key_id: warmUpId('key_'),
    member_id: warmUpId('mem_'),
    member_role: 'owner',
    owner_id: warmUpId('usr_'),
    mode: 'test',
    livemode: false,
    api_version: CURRENT_API_VERSION,
    plan: 'agency',
    lenses: [...LENSES],
    ...overrides,
  };
}

/** Pool connections a warm-up opens: what the first requests after a restart use at the load a replica carries. */
export const WARM_UP_CONNECTIONS = 2;

export interface WarmUpRun {
  app: INestApplication;
  /** The service's NATS transport, registered with Nest and connected, not yet in its queue groups. */
  server?: NatsRpcServer;
  pool: Pool;
  calls: WarmUpCall[];
  deadlineMs: number;
  log: Logger;
}

/**
 * A (re)started process's first request of each kind costs what no later one does: its first pool
 * connections opened (TCP, authentication, the startup options), each statement parsed and
 * planned on its connection, the code paths of its handlers compiled, TypeORM's metadata built.
 * Paid by the first client's request, that is a latency spike after every restart. So before the
 * process joins its queue groups (and answers ready), it opens its first connections and asks
 * one request of each kind it serves of its own handlers, against its real database, for
 * WARM_UP_WORKSPACE: reads that find nothing, writes whose transactions roll back. All of it
 * within `deadlineMs` (WARM_UP_DEADLINE_MS): a slow warm-up keeps the process out of its queue
 * groups that long at most; what is still running then finishes in the background.
 */
export async function warmUp(run: WarmUpRun): Promise<Record<WarmUpOutcome, number>> {
  const started = performance.now();
  const tally: Record<WarmUpOutcome, number> = { answered: 0, rolled_back: 0, failed: 0, deadline: 0 };
  const pending = new Set(run.calls.map(nameOf));
  if (run.deadlineMs > 0) {
    const work = (async () => {
      await openPool(run.pool);
      for (const call of run.calls) {
        const name = nameOf(call);
        const { outcome, reason } = await scope.run({ rolledBack: false }, () => ask(run, call));
        pending.delete(name);
        tally[outcome]++;
        calls.inc({ call: name, outcome });
        if (outcome === 'failed') run.log.warn({ call: name, reason }, 'warm-up request failed');
      }
    })();
    try {
      await withDeadline(work, run.deadlineMs);
    } catch (err) {
      work.catch(() => undefined);
      for (const name of pending) {
        tally.deadline++;
        calls.inc({ call: name, outcome: 'deadline' });
      }
      run.log.warn({ deadline_ms: run.deadlineMs, reason: (err as Error).message, unfinished: [...pending] }, 'warm-up cut short by its deadline: joining the queue groups');
    }
  }
  const seconds = (performance.now() - started) / 1000;
  duration.set(seconds);
  finishedAt.set(Date.now() / 1000);
  run.log.info({ ms: Math.round(seconds * 1000), ...tally }, 'warm-up done');
  return tally;
}

function nameOf(call: WarmUpCall): string {
  return 'subject' in call ? call.subject : call.name;
}

/**
 * The connections a light load uses, open (WARM_UP_CONNECTIONS, or fewer when the pool has no
 * room): taken at once and handed back idle. Not the whole pool: every replica filling
 * PG_POOL_MAX at each start would multiply the server's connections by the replicas whether or
 * not the load asks for them (a shared server refuses them: "too many clients"); the pool opens
 * more as the load asks. Connections other parts of the process hold (the relay's LISTEN, a
 * worker's) are not waited for.
 */
async function openPool(pool: Pool): Promise<void> {
  const max = (pool as Pool & { options: { max?: number } }).options.max ?? 10;
  const count = Math.min(WARM_UP_CONNECTIONS, pool.idleCount + Math.max(0, max - pool.totalCount));
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect().catch(() => undefined)));
  for (const client of clients) (client as PoolClient | undefined)?.release();
}

async function ask(run: WarmUpRun, call: WarmUpCall): Promise<{ outcome: WarmUpOutcome; reason?: string }> {
  const served = (): { outcome: WarmUpOutcome } => ({ outcome: scope.getStore()?.rolledBack ? 'rolled_back' : 'answered' });
  try {
    if ('run' in call) {
      await call.run(run.app);
      return served();
    }
    const handler = run.server?.getHandlerByPattern(call.subject);
    if (!handler) throw new Error(`no handler of ${call.subject} in this service`);
    const context = new NatsContext([call.subject, undefined as never]);
    const value = await handler({ ctx: warmUpContext(call.ctx), body: call.body }, context);
    if (isObservable(value)) await lastValueFrom(value, { defaultValue: undefined });
    return served();
  } catch (err) {
    if (scope.getStore()?.rolledBack || err instanceof WarmUpRollback) return { outcome: 'rolled_back' };
    // a domain error (Nest's RPC filter answers its payload): the request was served
    const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && code !== 'internal_error') return { outcome: 'answered' };
    return { outcome: 'failed', reason: typeof message === 'string' ? message : String(err) };
  }
}
