import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NatsConnection } from '@nats-io/transport-node';
import { Pool } from 'pg';
import {
  CURRENT_API_VERSION, ID_PREFIX, isDomainErrorPayload, KEYS_CHANGED_SUBJECT, Lens, MemberRole, Plan, RequestContext, RpcRequest,
} from '@app/contracts';
import { databaseUrlFor, natsUrl, withoutCredentials } from '@app/platform/config';
import { describePostgresProblem, noAnswerReason, probePostgres } from '@app/platform/connection-check';
import { MIGRATIONS_TABLE } from '@app/platform/data-source';
import { createPool } from '@app/platform/db';
import { newId } from '@app/platform/ids';
import { rootLogger } from '@app/platform/logger';
import { connectNats } from '@app/platform/nats';
import { LOCAL_NATS_IDENTITY_DIR, LOCAL_NATS_URL_FILE, readNatsSettings } from '@app/platform/nats-auth';
import { OutboxRelay } from '@app/platform/outbox-relay';
import { askService, ReplyPacket } from '@app/platform/reply-mux';
import { GATEWAY_MIGRATIONS } from '../../gateway/src/migrations';
import { AdminError, WorkspacesAdmin } from '../../gateway/src/workspaces/workspaces.admin';

const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The operator's NATS identity and bus: NATS_NKEY_SEED_FILE or NATS_NKEY_SEED and NATS_URL; where
 * unset, the identity and the bus `npm start` made for this checkout (.data/nats/identities/
 * operator.nk, .data/nats/url), so the CLI works beside it as is.
 */
function operatorNatsSettings() {
  const env = { ...process.env };
  const seed = join(process.cwd(), LOCAL_NATS_IDENTITY_DIR, 'operator.nk');
  if (!env.NATS_NKEY_SEED && !env.NATS_NKEY_SEED_FILE && existsSync(seed)) env.NATS_NKEY_SEED_FILE = seed;
  return readNatsSettings('operator', operatorNatsUrl(), env);
}

/** The bus the operator asks (for messages: a bad seed file is reported where NATS is opened). */
function operatorNatsUrl(): string {
  const url = join(process.cwd(), LOCAL_NATS_URL_FILE);
  return natsUrl({ ...process.env, NATS_URL: process.env.NATS_URL || (existsSync(url) ? readFileSync(url, 'utf8').trim() : undefined) });
}

/**
 * What every admin command works with: the gateway's database (workspaces, members, keys live
 * there) and, for data other services own, NATS request-reply to that service, asked as the
 * application would ask it. The CLI never writes another service's database.
 */
export class AdminContext {
  private nc?: Promise<NatsConnection | null>;
  private natsProblem?: string;

  private constructor(
    readonly pool: Pool,
    readonly databaseUrl: string,
    readonly workspaces: WorkspacesAdmin,
  ) {}

  /**
   * Opens the gateway's database as the gateway left it. The CLI migrates nothing: the gateway
   * migrates at start-up (and `dist/tools/migrate.js gateway` before a rollout), so an ordinary
   * command never takes the migration lock or changes a schema behind a running gateway.
   */
  static async open(): Promise<AdminContext> {
    const databaseUrl = databaseUrlFor('gateway');
    const pool = createPool(databaseUrl, 2);
    try {
      await checkSchema(pool, databaseUrl);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new AdminContext(pool, databaseUrl, new WorkspacesAdmin(pool));
  }

  async close(): Promise<void> {
    const nc = await this.nc;
    await nc?.close().catch(() => undefined);
    await this.pool.end();
  }

  /** NATS when it answers within 1.5 s, else null (and `natsProblem` says why): some commands can do without it. */
  nats(): Promise<NatsConnection | null> {
    this.nc ??= Promise.race([
      Promise.resolve().then(() => connectNats(operatorNatsSettings(), 'admin-cli')).catch((err) => {
        this.natsProblem = noAnswerReason(err) ?? String((err as Error)?.message ?? err);
        return null;
      }),
      new Promise<null>((resolve) =>
        setTimeout(() => {
          this.natsProblem ??= 'no answer within 1.5 s';
          resolve(null);
        }, 1500).unref(),
      ),
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
    if (!nc) {
      throw new AdminError(`cannot reach NATS at ${withoutCredentials(operatorNatsUrl())} (NATS_URL): ${this.natsProblem}; ${subject} is answered by the ${subject.split('.')[0]} service over NATS`);
    }
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<T>;
    try {
      packet = await askService<T>(nc, subject, data, REQUEST_TIMEOUT_MS);
    } catch (err) {
      const reason = /no responders/i.test(String((err as Error)?.message))
        ? `no ${subject.split('.')[0]} service is running on NATS at ${withoutCredentials(operatorNatsUrl())} (NATS_URL)`
        : (err as Error).message;
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

/** The setting a wrong gateway database URL comes from. */
function databaseSetting(): string {
  return process.env.GATEWAY_DATABASE_URL ? 'GATEWAY_DATABASE_URL' : 'DATABASE_URL';
}

/**
 * The gateway's schema is there and has every migration this CLI knows; otherwise what to fix,
 * naming the setting: the server (unreachable, refusing), the database (missing: DB_PREFIX or a
 * gateway that never started), or the schema (behind: the gateway of this version not started).
 */
async function checkSchema(pool: Pool, databaseUrl: string): Promise<void> {
  const setting = databaseSetting();
  const where = `${withoutCredentials(databaseUrl)} (${setting}${setting === 'DATABASE_URL' ? ' and DB_PREFIX' : ''})`;
  const migrate = 'start the gateway once (it migrates its database at start-up) or run `npm run -s migrate -- gateway` (in an image: node dist/tools/migrate.js gateway)';
  let applied: Set<string>;
  try {
    applied = new Set((await pool.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`)).rows.map((r) => r.name));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '42P01') throw new AdminError(`the gateway database at ${where} has no schema yet: ${migrate}`);
    if (code === '3D000') throw new AdminError(`there is no gateway database at ${where}: check ${setting === 'DATABASE_URL' ? 'DB_PREFIX' : setting}, or ${migrate}`);
    const problem = await probePostgres(databaseUrl);
    if (problem && problem.kind !== 'no-database') throw new AdminError(describePostgresProblem(problem, databaseUrl, setting));
    throw err;
  }
  const missing = GATEWAY_MIGRATIONS.map((m) => m.name).filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new AdminError(`the gateway database at ${where} lacks ${missing.length} migration(s) of this version (${missing.join(', ')}): ${migrate}`);
  }
}
