import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { isDomainErrorPayload, RequestContext, retryPolicyOf, RpcRequest } from '@app/contracts';
import { DomainError } from './domain-error';
import { activeDeadline } from './log-context';
import {
  AskOptions, askService, NO_RESPONDERS_FIRST_PAUSE_MS, NO_RESPONDERS_GRACE_MS, NO_RESPONDERS_MAX_PAUSE_MS, NoRespondersError, RawJson, ReplyPacket,
} from './reply-mux';
import { RetryBudget } from './retry-budget';
import { NATS_CONNECTION, SERVICE_CONFIG } from './tokens';

/**
 * The other service did not answer (no reply by the deadline, nobody serves the subject, the
 * connection closed): whether it acted is unknown. Left unhandled it answers `internal_error`.
 */
export class NoAnswer extends DomainError {
  constructor(
    readonly subject: string,
    reason: string,
    /** Nobody served the subject (every replica out of its queue groups): the request surely did not run. */
    readonly noResponders = false,
  ) {
    super('internal_error', `${subject} did not answer: ${reason}`);
  }
}

/**
 * The other service answered with a failure that is not a domain error (a bug of it): its
 * internals stay there. Left unhandled it answers `internal_error`.
 */
export class ServiceFailed extends DomainError {
  constructor(readonly subject: string, readonly payload: unknown) {
    super('internal_error', `${subject} failed`);
  }
}

/** The deadlines of a ServiceClient (ServiceConfig's, or a service's own setting). */
export interface RpcDeadlines {
  rpcTimeoutMs: number;
  /** Deadline of one attempt of a retryable request; without it a request has one attempt. */
  rpcAttemptTimeoutMs?: number;
}

/** Attempts of one retryable request at most (each on whichever replica the queue group picks). */
export const MAX_ATTEMPTS = 3;

/** After an attempt answered with a failure, and no other is out, the next one starts this much later. */
const FAILED_ATTEMPT_PAUSE_MS = 100;

/** Options of one request: its deadline and the trace it continues (see AskOptions). */
export interface ServiceRequestOptions {
  timeoutMs?: number;
  parent?: AskOptions['parent'];
  /**
   * Work that must be done whether or not the caller of the active work still waits (a
   * compensation: a refund): its deadline is its own, not cut to the caller's.
   */
  detached?: boolean;
}

/**
 * Request-reply to another service: the one client of the mesh, for the services and the gateway
 * (its RpcClient asks through one). The `{ctx, body}` envelope, `Request-Id` and the caller's
 * trace go with every request (askService). One policy: every request has a deadline
 * (RPC_TIMEOUT_MS unless the caller passes its own setting); no answer is NoAnswer; a domain
 * error of the other service is thrown as the same DomainError (code, message, param); any other
 * failure of it is ServiceFailed (`internal_error` without its internals).
 *
 * A request that may be asked twice (retryPolicyOf: a read, a write named by its request, a
 * create carrying an Idempotency-Key) is asked again when an attempt has no answer within
 * RPC_ATTEMPT_TIMEOUT_MS, up to MAX_ATTEMPTS within the request's deadline: NATS gives the new
 * attempt to any replica of the queue group, so a replica that died holding the request costs one
 * attempt's deadline, not the whole one. Earlier attempts keep listening: the first answer of any
 * attempt is the answer (a slow replica that does answer is not wasted), and an attempt answered
 * with a failure (`internal_error`) is asked again. Any other request has one
 * attempt; docs/decisions.md ("Retrying a request on another replica") says why and what makes a
 * retried write safe at the service. Retries are paid from the client's RetryBudget: when it is
 * spent (every attempt timing out on a saturated mesh) a request keeps its attempts out and waits.
 *
 * Inside the handling of a request (a deadline in the work scope: its `Rpc-Deadline`), a request
 * ends by that deadline too, unless `detached`; one sent when it has passed fails at once. Every
 * request carries its own deadline, so a service drops a read that reaches it too late.
 */
@Injectable()
export class ServiceClient {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_CONFIG) private readonly config: RpcDeadlines,
  ) {}

  /** What this client's retries are paid from (see RetryBudget). */
  budget = new RetryBudget();

  /** The service's answer to `body`, parsed. */
  ask<T>(subject: string, ctx: RequestContext, body: unknown, options: number | ServiceRequestOptions = {}): Promise<T> {
    return this.exchange<T>(subject, ctx, body, typeof options === 'number' ? { timeoutMs: options } : options, false) as Promise<T>;
  }

  /**
   * The service's answer to `body` as its JSON bytes (RawJson), for an HTTP response that passes
   * it on unparsed; the parsed value from a service that answered without them.
   */
  forward<T>(subject: string, ctx: RequestContext, body: unknown, options: ServiceRequestOptions = {}): Promise<RawJson<T> | T> {
    return this.exchange<T>(subject, ctx, body, options, true);
  }

  private async exchange<T>(subject: string, ctx: RequestContext, body: unknown, options: ServiceRequestOptions, raw: boolean): Promise<RawJson<T> | T> {
    const data: RpcRequest = { ctx, body };
    let timeoutMs = options.timeoutMs ?? this.config.rpcTimeoutMs;
    const callerDeadline = options.detached ? undefined : activeDeadline();
    if (callerDeadline !== undefined) {
      const left = callerDeadline - Date.now();
      if (left <= 0) throw new NoAnswer(subject, 'not sent: the caller of this work stopped waiting');
      timeoutMs = Math.min(timeoutMs, left);
    }
    const ask: AskOptions = { raw, parent: options.parent, deadline: Date.now() + timeoutMs };
    let packet: ReplyPacket<RawJson<T> | T>;
    try {
      packet = this.retryable(subject, ctx)
        ? await this.attempts<RawJson<T> | T>(subject, data, timeoutMs, ask)
        : await askService<RawJson<T> | T>(this.nc, subject, data, timeoutMs, ask);
    } catch (err) {
      throw new NoAnswer(subject, (err as Error).message, err instanceof NoRespondersError);
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isDomainErrorPayload(packet.err)) throw new DomainError(packet.err.code, packet.err.message, packet.err.param);
      throw new ServiceFailed(subject, packet.err);
    }
    return packet.response as RawJson<T> | T;
  }

  private retryable(subject: string, ctx: RequestContext): boolean {
    if (this.config.rpcAttemptTimeoutMs === undefined) return false;
    const policy = retryPolicyOf(subject);
    return policy === 'read' || policy === 'ref' || (policy === 'keyed' && ctx?.idempotency !== undefined);
  }

  /**
   * The first answer to any of up to MAX_ATTEMPTS attempts, each started when the ones before it
   * have had RPC_ATTEMPT_TIMEOUT_MS without an answer (or all failed), every one ending at the
   * request's deadline. Nobody serving the subject is asked again after pauses of 100, 200, then
   * every 400 ms, for NO_RESPONDERS_GRACE_MS (asked at 0, 0.1, 0.3, 0.7, 1.1 and 1.5 s after the
   * first ask, times kept from it, so timers run late on a busy machine do not skip the last), then
   * fails: a moment with every replica out of the group (rejoining after a database failover)
   * passes, a stopped service still fails within about 1.5 s.
   * An attempt answered with a failure (`internal_error`, or not a domain error: a replica whose
   * database connection broke, a reveal whose claim a later attempt took over) is the answer only
   * when no other attempt answers otherwise: with none out, the next attempt starts
   * FAILED_ATTEMPT_PAUSE_MS later (the work is safe to ask twice, and a connection broken by a
   * failover or a restart is gone from the pool by then).
   */
  private attempts<T>(subject: string, data: RpcRequest, timeoutMs: number, ask: AskOptions): Promise<ReplyPacket<T>> {
    const attemptMs = this.config.rpcAttemptTimeoutMs as number;
    const begun = performance.now();
    const end = begun + timeoutMs;
    let noRespondersPause = NO_RESPONDERS_FIRST_PAUSE_MS;
    // when the last ask after "no responders" was due: the schedule (0, 0.1, 0.3, 0.7, 1.1, 1.5 s)
    // is kept from `begun`, not from each late timer, so a busy process still asks at 1.5 s and
    // gives a rejoining replica the whole grace (run late, the pauses had added up past the grace
    // and skipped the last ask: a stopped service failed after 1.39 s on a loaded CI machine)
    let noRespondersDue = begun;
    return new Promise<ReplyPacket<T>>((resolve, reject) => {
      let started = 0;
      let waiting = 0;
      let settled = false;
      let next: NodeJS.Timeout | undefined;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(next);
        outcome();
      };
      // a failed answer (internal_error, or not a domain error) of one attempt: the answer only if no other attempt gives a better one
      let failed: ReplyPacket<T> | undefined;
      let lastError: Error | undefined;
      const launch = () => {
        const remaining = end - performance.now();
        // the first attempt earns retries; each further one is paid for, or not sent
        if (started === 0) this.budget.deposit();
        else if (!this.budget.withdraw()) {
          if (waiting === 0) finish(() => (failed ? resolve(failed) : reject(lastError ?? new Error(`${subject}: no retry left in this client's budget`))));
          return;
        }
        started++;
        waiting++;
        askService<T>(this.nc, subject, data, Math.max(1, remaining), ask).then(
          (packet) => {
            waiting--;
            if (settled) return;
            if (!isFailure(packet)) return finish(() => resolve(packet));
            failed ??= packet;
            if (waiting > 0) return;
            // every attempt so far failed: ask again after a pause (a replica whose pooled connection broke, a database failing over)
            if (started < MAX_ATTEMPTS && end - performance.now() > FAILED_ATTEMPT_PAUSE_MS) {
              clearTimeout(next);
              next = setTimeout(launch, FAILED_ATTEMPT_PAUSE_MS);
            } else finish(() => resolve(packet));
          },
          (err: Error) => {
            waiting--;
            if (settled) return;
            lastError = err;
            // nobody in the queue group for a moment (every replica rejoining after a database
            // failover): asked again shortly, for NO_RESPONDERS_GRACE_MS, not counted as an attempt
            if (err instanceof NoRespondersError && waiting === 0) {
              const now = performance.now();
              const due = noRespondersDue + noRespondersPause;
              if (due - begun < NO_RESPONDERS_GRACE_MS && end > due) {
                started--;
                clearTimeout(next);
                next = setTimeout(launch, Math.max(0, due - now));
                noRespondersDue = due;
                noRespondersPause = Math.min(noRespondersPause * 2, NO_RESPONDERS_MAX_PAUSE_MS);
                return;
              }
            }
            const more = started < MAX_ATTEMPTS && end - performance.now() > 1 && !(err instanceof NoRespondersError);
            if (more && waiting === 0) {
              clearTimeout(next);
              launch();
            } else if (waiting === 0) finish(() => (failed ? resolve(failed) : reject(err)));
          },
        );
        if (started < MAX_ATTEMPTS && remaining > attemptMs) next = setTimeout(launch, attemptMs);
      };
      launch();
    });
  }
}

/**
 * A reply that says the service failed rather than what the request meant (see attempts):
 * `internal_error`, a failure that is not a domain error, or `service_unavailable` (that
 * replica's database connection broke under the request: another replica's may not have).
 */
function isFailure(packet: ReplyPacket<unknown>): boolean {
  if (packet.err === undefined || packet.err === null) return false;
  return !isDomainErrorPayload(packet.err) || packet.err.code === 'internal_error' || packet.err.code === 'service_unavailable';
}
