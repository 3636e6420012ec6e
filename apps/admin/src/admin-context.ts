import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NatsConnection } from '@nats-io/transport-node';
import { Pool } from 'pg';
import {
  CURRENT_API_VERSION, ID_PREFIX, isDomainErrorPayload, KEYS_CHANGED_SUBJECT, Lens, MemberRole, Plan, RequestContext, RpcRequest,
} from '@app/contracts';
import { databaseUrlFor, natsUrl } from '@app/platform/config';
import { createPool, prepareDatabase } from '@app/platform/db';
import { newId } from '@app/platform/ids';
import { rootLogger } from '@app/platform/logger';
import { connectNats } from '@app/platform/nats';
import { LOCAL_NATS_IDENTITY_DIR, readNatsSettings } from '@app/platform/nats-auth';
import { OutboxRelay } from '@app/platform/outbox-relay';
import { askService, ReplyPacket } from '@app/platform/reply-mux';
import { GATEWAY_MIGRATIONS } from '../../gateway/src/migrations';
import { AdminError, WorkspacesAdmin } from '../../gateway/src/workspaces/workspaces.admin';

const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The operator's NATS identity: NATS_NKEY_SEED_FILE or NATS_NKEY_SEED, else the one `npm start`
 * made for this checkout (.data/nats/identities/operator.nk), so the CLI works beside it as is.
 */
function operatorNatsSettings() {
  const local = join(process.cwd(), LOCAL_NATS_IDENTITY_DIR, 'operator.nk');
  const env = !process.env.NATS_NKEY_SEED && !process.env.NATS_NKEY_SEED_FILE && existsSync(local) ? { ...process.env, NATS_NKEY_SEED_FILE: local } : process.env;
  return readNatsSettings('operator', natsUrl(env), env);
}

/**
 * What every admin command works with: the gateway's database (workspaces, members, keys live
 * there) and, for data other services own, NATS request-reply to that service, asked as the
 * application would ask it. The CLI never writes another service's database.
 */
export class AdminContext {
  private nc?: Promise<NatsConnection | null>;

  private constructor(
    readonly pool: Pool,
    readonly databaseUrl: string,
    readonly workspaces: WorkspacesAdmin,
  ) {}

  static async open(): Promise<AdminContext> {
    const databaseUrl = databaseUrlFor('gateway');
    await prepareDatabase(databaseUrl, GATEWAY_MIGRATIONS);
    const pool = createPool(databaseUrl, 2);
    return new AdminContext(pool, databaseUrl, new WorkspacesAdmin(pool));
  }

  async close(): Promise<void> {
    const nc = await this.nc;
    await nc?.close().catch(() => undefined);
    await this.pool.end();
  }

  /** NATS when it answers within 1.5 s, else null: some commands can do without it. */
  nats(): Promise<NatsConnection | null> {
    this.nc ??= Promise.race([
      connectNats(operatorNatsSettings(), 'admin-cli').catch(() => null),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 1500).unref()),
    ]);
    return this.nc;
  }

  /** Publishes the gateway outbox now if NATS answers; otherwise the gateway's relay will. */
  async publishPending(): Promise<void> {
    const nc = await this.nats();
    if (!nc) return;
    await new OutboxRelay(this.pool, nc, this.databaseUrl, rootLogger('admin')).publishBatch().catch(() => undefined);
  }

  /** Tells every gateway replica to drop its cached keys. */
  async announceKeyChange(): Promise<void> {
    const nc = await this.nats();
    if (!nc) return;
    nc.publish(KEYS_CHANGED_SUBJECT, '');
    await nc.flush().catch(() => undefined);
  }

  /** The request context of a workspace member (the owner by default), as the gateway builds it. */
  async contextFor(workspaceId: string, memberId?: string): Promise<RequestContext> {
    const { rows } = await this.pool.query<{ owner_id: string; plan: Plan; lenses: Lens[] }>(
      'SELECT owner_id, plan, lenses FROM workspaces WHERE id = $1',
      [workspaceId],
    );
    const workspace = rows[0];
    if (!workspace) throw new AdminError(`no workspace ${workspaceId}`);
    const member = memberId ?? workspace.owner_id;
    const found = await this.pool.query<{ role: MemberRole }>('SELECT role FROM members WHERE id = $1 AND workspace_id = $2', [
      member,
      workspaceId,
    ]);
    if (!found.rows[0]) throw new AdminError(`no member ${member} in workspace ${workspaceId}`);
    return {
      request_id: newId(ID_PREFIX.request),
      workspace_id: workspaceId,
      key_id: 'admin-cli',
      member_id: member,
      member_role: found.rows[0].role,
      owner_id: workspace.owner_id,
      mode: 'live',
      livemode: true,
      api_version: CURRENT_API_VERSION,
      plan: workspace.plan,
      lenses: workspace.lenses,
    };
  }

  /** A request-reply to the service that owns `subject`; its domain errors become AdminErrors. */
  async ask<T>(subject: string, ctx: RequestContext, body: unknown): Promise<T> {
    const nc = await this.nats();
    if (!nc) throw new AdminError(`NATS is not reachable at ${natsUrl()}: ${subject} is answered by a running service`);
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<T>;
    try {
      packet = await askService<T>(nc, subject, data, REQUEST_TIMEOUT_MS);
    } catch (err) {
      const reason = /no responders/i.test(String((err as Error)?.message)) ? `no ${subject.split('.')[0]} service is running` : (err as Error).message;
      throw new AdminError(`could not reach ${subject}: ${reason}`);
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isDomainErrorPayload(packet.err)) {
        const { code, message, param } = packet.err;
        throw new AdminError(`${code}${param ? ` (${param})` : ''}: ${message}`);
      }
      throw new AdminError(`${subject} failed`);
    }
    return packet.response as T;
  }
}
