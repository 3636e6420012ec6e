import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RequestContext, RpcRequest } from '@app/contracts/context';
import { type DomainErrorPayload, isDomainErrorPayload } from '@app/contracts/error-codes';
import { ID_PREFIX } from '@app/contracts/ids';
import type { MemberContext, MemberContextRequest } from '@app/contracts/resources/workspace';
import { SUBJECTS } from '@app/contracts/subjects';
import { CURRENT_API_VERSION } from '@app/contracts/versions';
import { natsUrl, withoutCredentials } from '@app/platform/config';
import { newId } from '@app/platform/ids';
import { connectNats } from '@app/platform/nats';
import { LOCAL_NATS_IDENTITY_DIR, LOCAL_NATS_URL_FILE, readNatsSettings } from '@app/platform/nats-auth';
import { noAnswerReason } from '@app/platform/no-answer';
import {
  askService, NO_RESPONDERS_FIRST_PAUSE_MS, NO_RESPONDERS_GRACE_MS, NO_RESPONDERS_MAX_PAUSE_MS, NoRespondersError, ReplyPacket, ReplyTimeoutError,
} from '@app/platform/reply-mux';
import { AdminError } from './admin-error';

const REQUEST_TIMEOUT_MS = 10_000;

/** Operator requests that belong to no workspace (the search index, dead letters, the gateway's workspaces). */
export function operatorContext(): RequestContext {
  return {
    request_id: newId(ID_PREFIX.request), workspace_id: 'operator', key_id: 'admin-cli', member_id: 'admin-cli', member_role: 'owner',
    owner_id: 'admin-cli', mode: 'live', livemode: true, api_version: CURRENT_API_VERSION, plan: 'agency', lenses: ['leads', 'investors', 'researchers', 'grants'],
  };
}

/**
 * A member's context not yet resolved because the bus did not answer: the command's own request
 * then reports the bus, naming the service the command needed.
 */
class UnresolvedContext {
  constructor(readonly request: MemberContextRequest) {}
}

/** The context a command asks a service with: the operator's own, or a member's (see contextFor). */
export type ActingContext = RequestContext | UnresolvedContext;

/**
 * The operator's NATS identity and bus: NATS_NKEY_SEED_FILE or NATS_NKEY_SEED and NATS_URL; where
 * unset, the identity and the bus `npm start` made for this checkout (.data/nats/identities/
 * operator.nk, .data/nats/url), so the CLI works beside it as is.
 */
function operatorNatsSettings() {
  const seed = join(process.cwd(), LOCAL_NATS_IDENTITY_DIR, 'operator.nk');
  const local = !process.env.NATS_NKEY_SEED && !process.env.NATS_NKEY_SEED_FILE && existsSync(seed);
  // over the environment, not a copy of it: every other setting is still read from the environment itself
  const env: NodeJS.ProcessEnv = local ? Object.assign(Object.create(process.env) as NodeJS.ProcessEnv, { NATS_NKEY_SEED_FILE: seed }) : process.env;
  return readNatsSettings('operator', operatorNatsUrl(), env);
}

/** How long the CLI waits for NATS to answer its connection (ms). */
const NATS_CONNECT_MS = Number(process.env.ADMIN_NATS_CONNECT_MS) > 0 ? Number(process.env.ADMIN_NATS_CONNECT_MS) : 5000;

/** The bus the operator asks (for messages: a bad seed file is reported where NATS is opened). */
function operatorNatsUrl(): string {
  const url = join(process.cwd(), LOCAL_NATS_URL_FILE);
  return natsUrl({ NATS_URL: process.env.NATS_URL || (existsSync(url) ? readFileSync(url, 'utf8').trim() : undefined) });
}

/**
 * What every admin command works with: NATS request-reply to the service that owns the data,
 * asked with the operator's identity as the application would ask it. Workspaces, members and
 * keys are the gateway's (SUBJECTS.gateway); the CLI opens no database.
 */
export class AdminContext {
  private nc?: Promise<NatsConnection | null>;
  private natsProblem?: string;

  async close(): Promise<void> {
    const nc = await this.nc;
    await nc?.close().catch(() => undefined);
  }

  /**
   * NATS when it answers within ADMIN_NATS_CONNECT_MS, else null (and `natsProblem` says why). A
   * refused connection fails at once; the wait is for a server that takes the connection but is
   * slow to answer (a loaded machine, TLS to a remote cluster), which 1.5 s did not always cover.
   */
  nats(): Promise<NatsConnection | null> {
    this.nc ??= Promise.race([
      Promise.resolve().then(() => connectNats(operatorNatsSettings(), 'admin-cli')).catch((err) => {
        this.natsProblem = noAnswerReason(err) ?? String((err as Error)?.message ?? err);
        return null;
      }),
      new Promise<null>((resolve) =>
        setTimeout(() => {
          this.natsProblem ??= `no answer within ${NATS_CONNECT_MS / 1000} s`;
          resolve(null);
        }, NATS_CONNECT_MS).unref(),
      ),
    ]);
    return this.nc;
  }

  /** Asks the gateway for the operator's workspace, member and key operations; its messages are written for the operator. */
  askGateway<T>(subject: string, body: unknown): Promise<T> {
    return this.request<T>(subject, operatorContext(), body, (err) => err.message);
  }

  /** The request context of a workspace member (the owner by default), as the gateway builds it for that member's key. */
  async contextFor(workspaceId: string, memberId?: string): Promise<ActingContext> {
    const request: MemberContextRequest = { workspace_id: workspaceId, ...(memberId !== undefined ? { member_id: memberId } : {}) };
    if (!(await this.nats())) return new UnresolvedContext(request);
    return this.resolve(request);
  }

  /** A request-reply to the service that owns `subject`; its domain errors become AdminErrors. */
  async ask<T>(subject: string, ctx: ActingContext, body: unknown): Promise<T> {
    await this.connected(subject);
    const context = ctx instanceof UnresolvedContext ? await this.resolve(ctx.request) : ctx;
    return this.request<T>(subject, context, body, ({ code, message, param }) => `${code}${param ? ` (${param})` : ''}: ${message}`);
  }

  /**
   * `ask` for an idempotent request (the same body asked twice does what asking once does): a request
   * that got no answer in time, or found no service listening, is asked again, up to `attempts`
   * times with a growing pause (1 s, 2 s, 4 s, ... at most 10 s), each retry told to `onRetry`.
   */
  async askIdempotent<T>(subject: string, ctx: ActingContext, body: unknown, attempts: number, onRetry: (err: AdminError, attempt: number) => void): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ask<T>(subject, ctx, body);
      } catch (err) {
        if (!(err instanceof AdminError) || !err.retryable || attempt >= attempts) throw err;
        onRetry(err, attempt);
        await new Promise((r) => setTimeout(r, Math.min(10_000, 1000 * 2 ** (attempt - 1))));
      }
    }
  }

  /**
   * A subscription of the operator's to `subject` (what it may read besides its replies: the
   * workspaces' events), in place at the server when this returns.
   */
  async subscribe(subject: string): Promise<Subscription> {
    const nc = await this.connected(subject);
    const subscription = nc.subscribe(subject);
    await nc.flush();
    return subscription;
  }

  private async resolve(request: MemberContextRequest): Promise<RequestContext> {
    const member = await this.askGateway<MemberContext>(SUBJECTS.gateway.membersContext, request);
    return {
      request_id: newId(ID_PREFIX.request),
      workspace_id: member.workspace_id,
      key_id: 'admin-cli',
      member_id: member.member_id,
      member_role: member.member_role,
      owner_id: member.owner_id,
      mode: 'live',
      livemode: true,
      api_version: CURRENT_API_VERSION,
      plan: member.plan,
      lenses: member.lenses,
    };
  }

  private async connected(subject: string): Promise<NatsConnection> {
    const nc = await this.nats();
    if (!nc) {
      throw new AdminError(`cannot reach NATS at ${withoutCredentials(operatorNatsUrl())} (NATS_URL): ${this.natsProblem}; ${subject} is answered by the ${subject.split('.')[0]} service over NATS`);
    }
    return nc;
  }

  private async request<T>(subject: string, ctx: RequestContext, body: unknown, describe: (err: DomainErrorPayload) => string): Promise<T> {
    const nc = await this.connected(subject);
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<T>;
    try {
      packet = await askWhileNobodyServes(() => askService<T>(nc, subject, data, REQUEST_TIMEOUT_MS));
    } catch (err) {
      const reason = /no responders/i.test(String((err as Error)?.message))
        ? `no ${subject.split('.')[0]} service is running on NATS at ${withoutCredentials(operatorNatsUrl())} (NATS_URL)`
        : (err as Error).message;
      throw new AdminError(`could not reach ${subject}: ${reason}`, err instanceof ReplyTimeoutError || err instanceof NoRespondersError);
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isDomainErrorPayload(packet.err)) throw new AdminError(describe(packet.err));
      throw new AdminError(`${subject} failed`);
    }
    return packet.response as T;
  }
}

/**
 * A request that finds nobody serving its subject (NATS answered "no responders": nothing was
 * done, so any request may be) asked again at ServiceClient's pauses for its grace: a service's
 * replicas out of their queue groups for a moment (a slow database probe, a failover) are back
 * within it, and a service that is not running is still reported within about 1.5 s.
 */
async function askWhileNobodyServes<T>(ask: () => Promise<T>): Promise<T> {
  const started = performance.now();
  for (let pause = NO_RESPONDERS_FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, NO_RESPONDERS_MAX_PAUSE_MS)) {
    try {
      return await ask();
    } catch (err) {
      if (!(err instanceof NoRespondersError) || performance.now() + pause - started >= NO_RESPONDERS_GRACE_MS) throw err;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
