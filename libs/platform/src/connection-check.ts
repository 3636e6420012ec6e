import { EventEmitter } from 'node:events';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, ConnectionOptions } from '@nats-io/transport-node';
import { Client } from 'pg';
import { withoutCredentials } from './config';
import { natsServers } from './nats-auth';
import { errorCode, noAnswerReason } from './no-answer';
import { pgClientConfig } from './pg-tls';

export { noAnswerReason } from './no-answer';

/**
 * What went wrong reaching PostgreSQL or NATS, told so that the reader knows which setting to fix:
 * a server that does not answer is not one that answered and refused the credentials. Used by
 * `npm start` (the admin CLI takes only no-answer.ts's words); every URL printed goes through
 * `withoutCredentials` first.
 */

export type PostgresProblem =
  /** Nothing answered at that address: start the server or fix the address. */
  | { kind: 'no-answer'; reason: string }
  /** The server asked for a password and the URL has none. */
  | { kind: 'password-missing'; user: string }
  /** The server refused the credentials or the role (SQLSTATE 28P01, 28000). */
  | { kind: 'refused'; user: string; code: string; message: string }
  /** The database named in the URL does not exist (3D000). */
  | { kind: 'no-database'; database: string }
  | { kind: 'other'; message: string };

const PASSWORD_REQUESTS = ['authenticationCleartextPassword', 'authenticationMD5Password', 'authenticationSASL'];

/** Connects once and runs `SELECT 1`; null when that worked, else what stood in the way. */
export async function probePostgres(url: string, timeoutMs = 3000): Promise<PostgresProblem | null> {
  const parsed = new URL(url);
  const client = new Client({ ...pgClientConfig(url), connectionTimeoutMillis: timeoutMs });
  const user = client.user ?? ''; // as node-postgres resolved it: the URL's, else PGUSER, else the OS user
  // node-postgres reports a password it lacks as a SASL or hashing error of its own, not as the server's refusal
  let askedForPassword = false;
  const connection = (client as unknown as { connection: EventEmitter }).connection;
  for (const event of PASSWORD_REQUESTS) connection.once(event, () => (askedForPassword = true));
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return classifyPostgresError(err, { user, database: decodeURIComponent(parsed.pathname.slice(1)), askedForPassword, hasPassword: parsed.password !== '' });
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function classifyPostgresError(
  err: unknown,
  seen: { user: string; database: string; askedForPassword?: boolean; hasPassword?: boolean },
): PostgresProblem {
  const code = errorCode(err);
  const message = String((err as Error)?.message ?? err);
  if (seen.askedForPassword && !seen.hasPassword) return { kind: 'password-missing', user: seen.user };
  if (code === '28P01' || code === '28000') return { kind: 'refused', user: seen.user, code, message };
  if (code === '3D000') return { kind: 'no-database', database: seen.database };
  const reason = noAnswerReason(err);
  if (reason) return { kind: 'no-answer', reason };
  return { kind: 'other', message };
}

/**
 * One sentence naming the server, the setting to fix and how. `setting` is the variable the URL
 * came from (DATABASE_URL, or a service's own <SERVICE>_DATABASE_URL).
 */
export function describePostgresProblem(problem: PostgresProblem, url: string, setting: string): string {
  const at = `PostgreSQL at ${withoutCredentials(url)} (${setting})`;
  const trust = 'or let local connections in without one (a `host all all 127.0.0.1/32 trust` line in pg_hba.conf, then `pg_ctlcluster <version> main reload`)';
  switch (problem.kind) {
    case 'no-answer':
      return `cannot reach ${at}: ${problem.reason}`;
    case 'password-missing':
      return `${at} answered but asks user "${problem.user}" for a password and ${setting} has none: put it in ${setting} (postgres://${problem.user}:<password>@host:port/db) ${trust}`;
    case 'refused':
      return problem.code === '28P01'
        ? `${at} answered but refused the password of user "${problem.user}" (${problem.message}): fix the password in ${setting} ${trust}`
        : `${at} answered but refused the connection (${problem.message}): name a role that may log in from here in ${setting}, or allow it in pg_hba.conf`;
    case 'no-database':
      return `${at} answered but has no database "${problem.database}"`;
    case 'other':
      return `${at} answered with an error: ${problem.message}`;
  }
}

export type NatsProblem =
  | { kind: 'no-answer'; reason: string }
  | { kind: 'refused'; message: string }
  | { kind: 'no-jetstream' }
  | { kind: 'other'; message: string };

/** Connects once and asks JetStream for its account info (`$JS.API.INFO`); null when both worked. */
export async function probeNats(url: string, timeoutMs = 3000, options: Partial<ConnectionOptions> = {}): Promise<NatsProblem | null> {
  let nc;
  try {
    nc = await connect({ ...options, servers: natsServers(url), name: 'mesh-check', timeout: timeoutMs, reconnect: false, noAsyncTraces: true });
  } catch (err) {
    const message = String((err as Error)?.message ?? err);
    if (/authorization|authentication|permissions/i.test(message)) return { kind: 'refused', message };
    return { kind: 'no-answer', reason: noAnswerReason(err) ?? message };
  }
  try {
    await jetstreamManager(nc, { timeout: timeoutMs }); // asks $JS.API.INFO (checkAPI)
    return null;
  } catch (err) {
    const message = String((err as Error)?.message ?? err);
    // without JetStream nothing answers $JS.API.INFO (or the server says it is not enabled)
    if (/no responders|not enabled|503|timeout/i.test(message)) return { kind: 'no-jetstream' };
    return { kind: 'other', message };
  } finally {
    await nc.close().catch(() => undefined);
  }
}

export function describeNatsProblem(problem: NatsProblem, url: string, setting = 'NATS_URL'): string {
  const at = `NATS at ${withoutCredentials(url)} (${setting})`;
  switch (problem.kind) {
    case 'no-answer':
      return `cannot reach ${at}: ${problem.reason}`;
    case 'refused':
      return `${at} answered but refused the mesh's identity (${problem.message}): give that server the mesh's NKEY users (\`npm run -s nats:config\` prints its configuration), or leave ${setting} unset and npm start runs a bus of its own`;
    case 'no-jetstream':
      return `${at} answered but runs without JetStream, which the mesh needs (events, outbox): restart nats-server with -js (and -sd <dir> for its store), or add \`jetstream {}\` to its configuration file, or point ${setting} at a server that has it`;
    case 'other':
      return `${at} answered with an error: ${problem.message}`;
  }
}
