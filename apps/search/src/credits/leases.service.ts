import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LeaseCreditsResult, RequestContext, SettleLeaseResult, SUBJECTS } from '@app/contracts';
import { DomainError, newId, NoAnswer, rootLogger, runPeriodically, ServiceClient } from '@app/platform';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';
import { CreditsService } from './credits.service';
import { LeasesRepository, TakeStatus } from './leases.repository';

/** A lease is sized to about this much of its workspace's recent page traffic. */
const LEASE_SPAN_MS = 2000;
/** Settled leases and their pages are kept this long (a retried page finds its charge). */
const KEEP_SETTLED_MS = 3_600_000;
/**
 * Pages (about: whole leases) a sweep forgets of the leases settled over KEEP_SETTLED_MS ago, every
 * SEARCH_LEASE_SWEEP_MS on every replica: 5,000 a second is more than a replica charges.
 */
const FORGET_PAGES_PER_SWEEP = 5000;
/** A page waiting on a lease another request of its workspace is asking for, or on one closing, asks again after this. */
const LIVE_LEASE_PAUSE_MS = 15;
/**
 * The next lease is asked for ahead of need once the workspace's open leases have room for fewer
 * pages than it asked in this long (at its recent rate), so that it is open before they are full.
 */
const LEASE_AHEAD_MS = 250;
/** After billing granted nothing to a lease asked for ahead, none is asked for ahead for the workspace for this long. */
const AHEAD_REFUSED_PAUSE_MS = 1000;

interface Waiting {
  ctx: RequestContext;
  ref: string;
  resolve: (status: TakeStatus) => void;
  reject: (err: unknown) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Search pages paid from a per-workspace credit lease (issue 37; docs/decisions.md, "Credit
 * leases"): billing reserves a block of the workspace's credits (billing.credits.lease) and
 * search charges each page against it in its own database, committed before the page is
 * answered (search_lease_take, keyed by the request's ref), so a served page does not wait on
 * billing. A lease is returned when idle, past its time or full, or when GET /credits or a reveal
 * needs the credits: closed here first (no page is charged against it after that), then settled
 * at billing with the pages recorded against it, by whichever replica gets to it (the sweeper of
 * every replica settles what is closing, so a replica killed mid-lease loses nothing).
 */
@Injectable()
export class LeasesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('search');
  /** Pages of a workspace waiting for the take in flight: charged together by the next one. */
  private readonly queues = new Map<string, Waiting[]>();
  /** The lease request in flight per workspace: the pages that found no room wait for it together. */
  private readonly acquiring = new Map<string, Promise<number>>();
  /** Pages asked per workspace since its last lease request: what the next lease is sized to. */
  private readonly demand = new Map<string, { pages: number; since: number }>();
  /** When billing last granted nothing to a lease asked for ahead of need, per workspace. */
  private readonly refusedAhead = new Map<string, number>();
  private stopSweeps?: () => void;
  private sweeps = 0;

  constructor(
    private readonly repo: LeasesRepository,
    private readonly peers: ServiceClient,
    private readonly credits: CreditsService,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.stopSweeps = runPeriodically(() => this.sweep(), this.config.lease.sweepMs);
  }

  onApplicationShutdown(): void {
    this.stopSweeps?.();
  }

  /**
   * Charges the page `ref` 1 credit against the workspace's leases, asking billing for a lease
   * when none has room. 402 when billing has no credit to spare and no lease of the workspace
   * can still take one (one being asked for, or closing with room, is waited for within the
   * peer deadline). A ref charged before is not charged again; a ref refunded is not done again.
   */
  async charge(ctx: RequestContext, ref: string): Promise<void> {
    const deadline = Date.now() + this.config.peerTimeoutMs;
    this.noteDemand(ctx.workspace_id);
    for (;;) {
      const status = await this.take(ctx, ref);
      if (status === 'taken' || status === 'already') return;
      if (status === 'refunded') throw new DomainError('internal_error', 'This page was given up before; nothing was charged');
      // billing is asked even past the deadline: when it has no credit to spare, the answer is
      // 402, not "not in time" (on a loaded machine, pages queued behind the takes of a burst
      // used to reach their deadline here and answer 500 where billing would have said 402)
      if ((await this.acquire(ctx)) > 0) {
        if (Date.now() > deadline) throw new DomainError('internal_error', 'No credit lease could be had in time; nothing was charged');
        continue;
      }
      if (Date.now() < deadline && (await this.repo.anyLive(ctx.workspace_id))) {
        await sleep(LIVE_LEASE_PAUSE_MS);
        continue;
      }
      throw new DomainError('insufficient_credits', 'Not enough credits for this search page');
    }
  }

  /**
   * Gives a charged page's credit back: to its lease while the lease is open, else through
   * billing's refund by ref (the settle may have carried the page, or may yet: billing's
   * refunded_refs makes either order exact).
   */
  async refund(ctx: RequestContext, ref: string, reason: string): Promise<void> {
    let where: Awaited<ReturnType<LeasesRepository['refund']>>;
    try {
      where = await this.repo.refund(ctx.workspace_id, ref);
    } catch (err) {
      this.log.error({ workspace_id: ctx.workspace_id, ref, reason: (err as Error).message }, 'search: page refund not recorded; refunded through billing');
      where = 'billing';
    }
    if (where === 'billing') await this.credits.refund(ctx, ref, reason);
  }

  /**
   * Returns the workspace's leases now: closes every open or pending one and settles every
   * closed one with billing. How many were settled (0: the workspace held none).
   */
  async settleWorkspace(ctx: RequestContext): Promise<{ settled: number }> {
    await this.repo.close({ workspaceId: ctx.workspace_id });
    let settled = 0;
    for (const lease of await this.repo.closing(ctx.workspace_id)) {
      await this.settle(lease.id, lease.ctx);
      settled++;
    }
    return { settled };
  }

  /** Whether the workspace holds a lease not settled yet. */
  holdsLease(workspaceId: string): Promise<boolean> {
    return this.repo.anyUnsettled(workspaceId);
  }

  /** Closes idle, expired, full and given-up leases, and settles what is closing, of every replica. */
  async sweep(): Promise<number> {
    await this.repo.close({ idleMs: this.config.lease.idleMs, pendingMs: 2 * this.config.peerTimeoutMs });
    let settled = 0;
    for (const lease of await this.repo.closing()) {
      try {
        await this.settle(lease.id, lease.ctx);
        settled++;
      } catch (err) {
        this.log.warn({ lease_id: lease.id, reason: (err as Error).message }, 'search: lease not settled; tried again at the next sweep');
      }
    }
    // a few leases' pages at every sweep, not a minute's worth at once (0.8 s for 57,256 pages)
    await this.repo.forgetSettled(KEEP_SETTLED_MS, FORGET_PAGES_PER_SWEEP);
    if (++this.sweeps % 60 === 0) {
      const old = Date.now() - 60_000;
      for (const [ws, d] of this.demand) if (d.since < old) this.demand.delete(ws);
      for (const [ws, at] of this.refusedAhead) if (at < old) this.refusedAhead.delete(ws);
    }
    return settled;
  }

  private async settle(leaseId: string, ctx: RequestContext): Promise<SettleLeaseResult> {
    const pages = await this.repo.pagesOf(leaseId);
    const result = await this.peers.ask<SettleLeaseResult>(SUBJECTS.billing.creditsSettleLease, ctx, { lease_id: leaseId, pages }, { detached: true });
    await this.repo.markSettled(leaseId);
    return result;
  }

  /**
   * One take per workspace at a time, begun at the end of the loop turn its first page came in
   * (`setImmediate`, as ReadBatch reads pages), so that the pages of one turn are charged by one
   * take; the pages that arrive while it runs go in the next one together. Begun at once, a burst's
   * first page was taken alone and every other page of the burst waited for that commit before its
   * own. A take that leaves the workspace's open leases little room asks billing for the next
   * lease at once (ahead), while pages are still charged against the ones open.
   */
  private take(ctx: RequestContext, ref: string): Promise<TakeStatus> {
    const workspaceId = ctx.workspace_id;
    return new Promise<TakeStatus>((resolve, reject) => {
      const queue = this.queues.get(workspaceId);
      if (queue) {
        queue.push({ ctx, ref, resolve, reject });
        return;
      }
      const fresh = [{ ctx, ref, resolve, reject }];
      this.queues.set(workspaceId, fresh);
      setImmediate(() => void this.drain(workspaceId, fresh));
    });
  }

  private async drain(workspaceId: string, queue: Waiting[]): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, 500);
        try {
          const { statuses, room } = await this.repo.take(workspaceId, batch.map((w) => w.ref));
          batch.forEach((w, i) => w.resolve(statuses[i]));
          this.ahead(batch[batch.length - 1].ctx, room);
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      if (this.queues.get(workspaceId) === queue) this.queues.delete(workspaceId);
    }
  }

  private noteDemand(workspaceId: string): void {
    const d = this.demand.get(workspaceId);
    if (d) d.pages++;
    else this.demand.set(workspaceId, { pages: 1, since: Date.now() });
  }

  /**
   * Asks billing for the workspace's next lease in the background when its open leases have room
   * for fewer pages than it asks in LEASE_AHEAD_MS, unless a request is in flight already (a page
   * that finds no room waits for that one) or billing granted nothing to the last one asked ahead
   * within AHEAD_REFUSED_PAUSE_MS (a workspace out of credits is not asked for on every take).
   * Exact as any lease: recorded here before billing is asked, settled whatever happens.
   */
  private ahead(ctx: RequestContext, room: number): void {
    const workspaceId = ctx.workspace_id;
    if (this.acquiring.has(workspaceId) || room >= this.pagesPerMs(workspaceId, Date.now()) * LEASE_AHEAD_MS) return;
    const refused = this.refusedAhead.get(workspaceId);
    if (refused !== undefined && Date.now() - refused < AHEAD_REFUSED_PAUSE_MS) return;
    this.acquire(ctx).then(
      (granted) => {
        if (granted > 0) this.refusedAhead.delete(workspaceId);
        else this.refusedAhead.set(workspaceId, Date.now());
      },
      (err: Error) => {
        this.refusedAhead.set(workspaceId, Date.now());
        this.log.warn({ workspace_id: workspaceId, reason: err.message }, 'search: a lease asked for ahead of need was not had; pages ask again when the open ones are full');
      },
    );
  }

  /** The next lease's size: the workspace's pages per LEASE_SPAN_MS since its last lease request, 1 to SEARCH_LEASE_MAX. */
  private want(workspaceId: string): number {
    const now = Date.now();
    const perMs = this.pagesPerMs(workspaceId, now);
    this.demand.set(workspaceId, { pages: 0, since: now });
    return Math.min(this.config.lease.max, Math.max(1, Math.ceil(perMs * LEASE_SPAN_MS)));
  }

  /** The workspace's pages a millisecond since its last lease request (over 250 ms at least); 0 when none was asked. */
  private pagesPerMs(workspaceId: string, now: number): number {
    const d = this.demand.get(workspaceId);
    return d ? d.pages / Math.max(250, now - d.since) : 0;
  }

  /** The workspace's lease request in flight, or a new one: > 0 when a lease opened (or may have: ask again). */
  private acquire(ctx: RequestContext): Promise<number> {
    let pending = this.acquiring.get(ctx.workspace_id);
    if (!pending) {
      pending = this.lease(ctx).finally(() => this.acquiring.delete(ctx.workspace_id));
      this.acquiring.set(ctx.workspace_id, pending);
    }
    return pending;
  }

  /**
   * Asks billing for a lease, recorded here as pending first: a lease billing grants is then
   * always known here, and settled (closed at billing) even when its answer is lost.
   */
  private async lease(ctx: RequestContext): Promise<number> {
    const id = newId('lse_');
    await this.repo.insertPending(id, ctx, this.config.lease.ttlMs);
    let result: LeaseCreditsResult;
    try {
      result = await this.peers.ask<LeaseCreditsResult>(SUBJECTS.billing.creditsLease, ctx, { lease_id: id, want: this.want(ctx.workspace_id) });
    } catch (err) {
      // billing may have granted it with the answer lost, or may yet (a request it reads late):
      // given up here, and settled by the sweeper once billing answers, which closes the id there
      // whichever comes first, the grant or the settle
      await this.repo.giveUp(id);
      if (err instanceof NoAnswer) throw new DomainError('internal_error', 'billing did not answer; nothing was charged');
      throw err;
    }
    if (result.granted > 0 && result.pool && !result.closed) {
      const ttl = Math.max(1, Math.min(this.config.lease.ttlMs, result.expires_in_ms ?? Number.MAX_SAFE_INTEGER));
      // false: the sweeper gave the request up meanwhile and settles it; a page then asks again
      await this.repo.open(id, result.granted, result.pool, ttl);
      return result.granted;
    }
    // nothing granted: closed here and settled, which closes the id at billing too (a late
    // attempt of this request must not reserve credits nobody would charge)
    await this.repo.giveUp(id);
    void this.settle(id, ctx).catch(() => undefined);
    return 0;
  }
}
