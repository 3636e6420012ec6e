import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConsumeCreditsResult, RequestContext, SUBJECTS } from '@app/contracts';
import { DomainError, NoAnswer, rootLogger, runPeriodically, ServiceClient } from '@app/platform';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';
import { PendingRefundsRepository } from './pending-refunds.repository';

/**
 * Search's side of billing: a consume by ref (the search page's request id, a reveal's id) and its
 * refund. Billing not answering a consume means no result, and the consume, whose answer may have
 * been lost, is refunded by ref; a refund billing does not take is queued and retried.
 */
@Injectable()
export class CreditsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('search');
  private stopRetries?: () => void;

  constructor(
    private readonly peers: ServiceClient,
    private readonly pendingRefunds: PendingRefundsRepository,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.stopRetries = runPeriodically(() => this.retryRefunds(), this.config.refundRetryMs);
  }

  onApplicationShutdown(): void {
    this.stopRetries?.();
  }

  /**
   * The credit for `ref`, taken or refused. A ref billing answers `refunded` was given back (an
   * earlier attempt of this work had no answer from billing in time, and refunded it): nothing is
   * charged for it, so the work it pays for is not done either, and the client's retry (a new
   * request, a new claim) pays with a ref of its own.
   */
  async consume(ctx: RequestContext, ref: string, reason = 'search_page'): Promise<ConsumeCreditsResult> {
    let result: ConsumeCreditsResult;
    try {
      result = await this.peers.ask<ConsumeCreditsResult>(SUBJECTS.billing.creditsConsume, ctx, { ref, reason });
    } catch (err) {
      if (err instanceof NoAnswer) {
        // the consume may have been applied with its answer lost: give it back by ref
        await this.refund(ctx, ref, `${reason}_failed`);
        throw new DomainError('internal_error', 'billing did not answer; nothing was charged');
      }
      throw err;
    }
    if (result.refunded) throw new DomainError('internal_error', 'billing did not answer in time; nothing was charged');
    return result;
  }

  /** Best effort now; a refund that cannot reach billing is logged with its ref (refunds are idempotent). */
  async refund(ctx: RequestContext, ref: string, reason: string): Promise<void> {
    try {
      // a compensation: made even when the request that caused it is no longer awaited
      await this.peers.ask(SUBJECTS.billing.creditsRefund, ctx, { ref, reason }, { detached: true });
    } catch (err) {
      this.log.error({ workspace_id: ctx.workspace_id, ref, reason: (err as Error).message }, 'search: refund failed; queued for retry');
      await this.pendingRefunds.queue({ ref, ctx, reason }).catch(() => undefined);
    }
  }

  /** Retries queued refunds; a refund billing answers (applied or not) leaves the queue. */
  async retryRefunds(): Promise<number> {
    const refunds = await this.pendingRefunds.claimOldest();
    let done = 0;
    for (const refund of refunds) {
      try {
        await this.peers.ask(SUBJECTS.billing.creditsRefund, refund.ctx, { ref: refund.ref, reason: refund.reason });
        await this.pendingRefunds.remove(refund.ref);
        done++;
      } catch {
        // billing still away: the next run tries again
      }
    }
    return done;
  }
}
