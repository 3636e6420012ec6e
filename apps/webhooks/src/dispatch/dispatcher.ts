import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { NatsConnection, Subscription } from '@nats-io/transport-node';
import { NATS_BROADCASTS } from '@app/contracts';
import { continueFrom, NATS_CONNECTION, randomToken, rootLogger, signatureHeader, SpanKind } from '@app/platform';
import { decryptSecret } from '../secrets';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { Claimed, DeliveriesRepository } from './deliveries.repository';
import { EndpointSlots } from './endpoint-slots';
import { OutcomeRecorder } from './outcome-recorder';
import { SendResult, WebhookSender } from './sender';

/** Seconds a claim lasts beyond the attempt's time-out: it outlives its attempt unless the process dies. */
const LEASE_MARGIN_S = 5;
const POLL_MS = 1000;
const CLAIM_BATCH = 200;
/** How long this process remembers a deleted endpoint, so a claim read before the delete sends nothing. */
const DELETED_MEMORY_MS = 60_000;
/** Decrypted secrets kept at most (the cache starts over beyond it). */
const MAX_CACHED_SECRETS = 10_000;

/** Broadcast to every replica: abort attempts in flight to a deleted endpoint. */
export const ENDPOINT_DELETED_SUBJECT = NATS_BROADCASTS.webhookEndpointDeleted;

/**
 * Sends due deliveries: claims them (DeliveriesRepository) as this process's slots allow
 * (EndpointSlots), sends each, and hands the outcome to the OutcomeRecorder. Claims are leases
 * taken with FOR UPDATE SKIP LOCKED and a fresh token: replicas never hold the same attempt, and
 * only the holder of the token records its outcome. A process that dies mid-attempt leaves a
 * lease that expires, and the attempt is made again.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('webhooks');
  private readonly sender: WebhookSender;
  /** Attempts of this process, sending or waiting for their outcome's commit. */
  private readonly slots: EndpointSlots;
  private readonly aborts = new Map<string, Set<AbortController>>();
  /** Decrypted secrets by their stored form: a rolled secret is a new key, so nothing goes stale. */
  private readonly secrets = new Map<string, string>();
  /** Endpoints deleted lately (id -> when): claims of theirs still in hand are not sent. */
  private readonly deleted = new Map<string, number>();
  private stopListening?: () => Promise<void>;
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private pumping = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outcomes: OutcomeRecorder,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {
    // sockets are not the limit: the per-endpoint counts of the slots are (two endpoints may share a host)
    this.sender = new WebhookSender(config.allowedHosts, config.concurrency, config.dnsServers);
    this.slots = new EndpointSlots(config.concurrency, config.endpointConcurrency, () => this.kickSoon());
  }

  async onApplicationBootstrap(): Promise<void> {
    this.deliveries.observeBacklog();
    this.stopListening = await this.deliveries.listenForUnclaimed(
      () => this.kick(),
      (err) => this.log.warn({ err: err.message }, 'webhooks: LISTEN connection failed; polling until it is taken up again'),
    );
    this.subscription = this.nc.subscribe(ENDPOINT_DELETED_SUBJECT, {
      callback: (_err, msg) => this.abortEndpoint(msg.string()),
    });
    this.schedule();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.soon);
    this.subscription?.unsubscribe();
    // attempts in flight finish (at most the time-out) so their outcome is recorded
    await this.slots.whenIdle();
    this.sender.close();
    await this.stopListening?.();
  }

  /** Aborts this process's attempts to a deleted endpoint. */
  abortEndpoint(endpointId: string): void {
    const now = Date.now();
    for (const [id, at] of this.deleted) if (now - at > DELETED_MEMORY_MS) this.deleted.delete(id);
    this.deleted.set(endpointId, now);
    for (const controller of this.aborts.get(endpointId) ?? []) controller.abort();
  }

  /** Seconds a claim lasts: it outlives its attempt unless the process dies. */
  get leaseSeconds(): number {
    return Math.ceil(this.config.timeoutMs / 1000) + LEASE_MARGIN_S;
  }

  /**
   * A slot for a fresh delivery that the fan-out claims in its own transaction, if this process
   * has room for one more attempt to the endpoint; then `launch` (after the commit) or `release`.
   */
  reserve(endpointId: string): boolean {
    return !this.stopped && this.slots.tryTake(endpointId);
  }

  /** A reserved slot not used after all (the fan-out's transaction failed, or the row was not made). */
  release(endpointId: string): void {
    this.slots.release(endpointId);
  }

  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Slots freed within a few ms are refilled by one claim, not one claim each. */
  private kickSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.kick();
    }, 3);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.kick();
      this.schedule();
    }, POLL_MS);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const free = this.slots.free;
        if (free <= 0 || this.stopped) return;
        const asked = Math.min(free, CLAIM_BATCH);
        const claimed = await this.claim(asked);
        for (const row of claimed) this.launch(row);
        // fewer than asked: no more due rows with room now (slots freed meanwhile kick again)
        if (claimed.length < asked) return;
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'webhooks: claiming deliveries failed');
    }
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const candidates = await this.deliveries.dueCandidates(this.slots.saturated(), limit * 4);
    // the slots are counted now (the fan-out may have reserved some while the query ran) and
    // held while the claim is in flight, so a reservation cannot overfill an endpoint
    const picked = this.slots.takeFor(candidates, limit);
    if (picked.length === 0) return [];
    let claimed: Claimed[];
    try {
      claimed = await this.deliveries.claim(picked.map((c) => c.id), randomToken(16), this.leaseSeconds);
    } catch (err) {
      for (const c of picked) this.slots.release(c.endpoint_id);
      throw err;
    }
    // the slots of candidates another replica claimed first (or whose endpoint went) are given back
    const got = new Set(claimed.map((r) => r.id));
    for (const c of picked) if (!got.has(c.id)) this.slots.release(c.endpoint_id);
    return claimed;
  }

  /** Sends a claimed delivery whose slots are already taken (by `claim` or `reserve`). */
  launch(row: Claimed): void {
    if (this.deleted.has(row.endpoint_id)) {
      // deleted after the claim was read: nothing is sent, and the row went with the endpoint
      this.slots.release(row.endpoint_id);
      return;
    }
    const controller = new AbortController();
    const set = this.aborts.get(row.endpoint_id) ?? new Set();
    set.add(controller);
    this.aborts.set(row.endpoint_id, set);
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      set.delete(controller);
      if (set.size === 0 && this.aborts.get(row.endpoint_id) === set) this.aborts.delete(row.endpoint_id);
      this.slots.freeEndpoint(row.endpoint_id);
    };
    const attributes = { 'webhook.delivery.id': row.id, 'webhook.endpoint.id': row.endpoint_id };
    void continueFrom(row.trace_context, 'webhook delivery', SpanKind.CLIENT, attributes, () =>
      this.attempt(row, controller.signal, answer).catch((err) => this.log.error({ err, delivery_id: row.id }, 'webhooks: recording an attempt failed')),
    )
      .finally(() => {
        answer();
        this.slots.freeTotal();
      });
  }

  private decrypt(stored: string): string {
    let secret = this.secrets.get(stored);
    if (!secret) {
      if (this.secrets.size >= MAX_CACHED_SECRETS) this.secrets.clear();
      secret = decryptSecret(stored, this.config.secretKey);
      this.secrets.set(stored, secret);
    }
    return secret;
  }

  /** The secrets that sign an attempt: the current one, and a rolled one's predecessor in its grace period. */
  private secretsOf(row: Claimed): string[] {
    const current = this.decrypt(row.secret_enc);
    return row.previous_secret_enc ? [current, this.decrypt(row.previous_secret_enc)] : [current];
  }

  private async attempt(row: Claimed, signal: AbortSignal, answered: () => void): Promise<void> {
    let result: SendResult;
    try {
      const t = Math.floor(Date.now() / 1000); // the real clock: receivers check it against theirs
      result = await this.sender.send({
        url: row.url,
        body: row.body,
        headers: { 'service-signature': signatureHeader(this.secretsOf(row), row.body, t), 'user-agent': 'LeadIntelligence-Webhooks/1.0' },
        timeoutMs: this.config.timeoutMs,
        signal,
      });
    } catch (err) {
      result = { ok: false, status_code: null, error: (err as Error).message, latency_ms: 0 };
    }
    // the receiver is done with this attempt: its endpoint slot goes to the next one while the
    // outcome is recorded; the row stays leased to this claim until then, so nobody resends it
    answered();
    this.log.info(
      { delivery_id: row.id, endpoint_id: row.endpoint_id, event_id: row.event_id, attempt: row.attempts + 1, ok: result.ok, status_code: result.status_code, latency_ms: result.latency_ms },
      'webhook attempt',
    );
    await this.outcomes.record(row, result);
  }
}
