import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConnectionOptions, nkeys, TlsOptions } from '@nats-io/transport-node';
import { nkeyAuthenticator, nkeyPublicKey } from './nkey-authenticator';
import { NATS_BROADCASTS, NATS_CALLS, NATS_DURABLES, NATS_EVENT_OWNERS, NATS_IDENTITIES, natsInboxPrefix, type NatsIdentity } from '@app/contracts/nats-flows';
import { EVENTS_STREAM, eventSubject, SERVICE_NAMES, type ServiceName, WORKSPACE_EVENTS_PREFIX } from '@app/contracts/subjects';
import { ConfigError } from './config-error';

/** The servers of a NATS_URL value (one, or several separated by commas). */
export function natsServers(value: string): string[] {
  return value.split(',').map((server) => server.trim()).filter(Boolean);
}

/** What a connection of one identity needs to reach the bus: where, as whom, over what. */
export interface NatsConnectSettings {
  url: string;
  identity: NatsIdentity;
  /** The identity's NKEY seed (`SU…`); absent on a development bus without authentication. */
  seed?: string;
  tls?: TlsOptions & { servername?: string };
}

/**
 * The NATS settings of one identity, read once: `NATS_NKEY_SEED_FILE` (a file holding the
 * identity's NKEY seed, as a Kubernetes Secret mounts it) or `NATS_NKEY_SEED` (the seed itself);
 * `NATS_TLS_CA_FILE`, `NATS_TLS_CERT_FILE`, `NATS_TLS_KEY_FILE`, `NATS_TLS_SERVER_NAME` for TLS.
 * With `NODE_ENV=production` a missing seed refuses to start: the bus is never open in production.
 */
export function readNatsSettings(identity: NatsIdentity, url: string, env: NodeJS.ProcessEnv = process.env): NatsConnectSettings {
  let seed = env.NATS_NKEY_SEED?.trim() || undefined;
  const seedFile = env.NATS_NKEY_SEED_FILE;
  if (!seed && seedFile) {
    try {
      seed = readFileSync(seedFile, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(`NATS_NKEY_SEED_FILE cannot be read (${seedFile}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (seed) {
    try {
      nkeys.fromSeed(new TextEncoder().encode(seed));
    } catch {
      throw new ConfigError(`${env.NATS_NKEY_SEED ? 'NATS_NKEY_SEED' : 'NATS_NKEY_SEED_FILE'} does not hold an NKEY user seed (SU…)`);
    }
  } else if (env.NODE_ENV === 'production') {
    throw new ConfigError(`NATS_NKEY_SEED_FILE or NATS_NKEY_SEED is required when NODE_ENV=production (the ${identity} identity's NKEY seed)`);
  }
  const tls = readTls(env);
  return { url, identity, seed, ...(tls ? { tls } : {}) };
}

function readTls(env: NodeJS.ProcessEnv): NatsConnectSettings['tls'] | undefined {
  const { NATS_TLS_CA_FILE: caFile, NATS_TLS_CERT_FILE: certFile, NATS_TLS_KEY_FILE: keyFile, NATS_TLS_SERVER_NAME: servername } = env;
  if (!caFile && !certFile && !keyFile && !servername) return undefined;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new ConfigError('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together (a client certificate and its key)');
  for (const [name, file] of [['NATS_TLS_CA_FILE', caFile], ['NATS_TLS_CERT_FILE', certFile], ['NATS_TLS_KEY_FILE', keyFile]] as const) {
    if (file && !existsSync(file)) throw new ConfigError(`${name} names a file that does not exist: ${file}`);
  }
  return {
    ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}),
    ...(certFile ? { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile as string, 'utf8') } : {}),
    ...(servername ? { servername } : {}),
  };
}

/** Options for `connect()` (nats.js or Nest's NATS transport) of an identity. */
export function natsConnectOptions(settings: NatsConnectSettings, name: string): ConnectionOptions {
  return {
    servers: natsServers(settings.url),
    // a cluster's servers are tried in the order NATS_URL gives (each replica its own first node)
    noRandomize: true,
    name,
    inboxPrefix: natsInboxPrefix(settings.identity),
    ...(settings.seed ? { authenticator: nkeyAuthenticator(settings.seed) } : {}),
    ...(settings.tls ? { tls: settings.tls } : {}),
  };
}

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

const JS_API = '$JS.API';

/**
 * JetStream API subjects a service needs for the EVENTS stream and its own durable consumers. It
 * may look the stream up (STREAM.INFO) and never create, update, delete or purge it: the operator
 * provisions it (provisionEventsStream). It creates or updates each of its durables only through
 * the create subject that names the durable and its filter (`CONSUMER.CREATE.<stream>.<durable>.<filter>`,
 * nats-server 2.9+), and the server refuses a request whose body names another durable or another
 * filter than its subject; the legacy forms that carry the filter in the body alone
 * (`CONSUMER.CREATE.<stream>.<durable>`, `CONSUMER.DURABLE.CREATE.…`) and ephemeral consumers are
 * not granted. So a service reads the events of its documented subjects, through its own durables,
 * and nothing else.
 */
function jetstreamGrants(durables: Readonly<Record<string, string>>): string[] {
  return [
    `${JS_API}.INFO`,
    `${JS_API}.STREAM.INFO.${EVENTS_STREAM}`,
    ...Object.entries(durables).flatMap(([durable, filter]) => [
      `${JS_API}.CONSUMER.INFO.${EVENTS_STREAM}.${durable}`,
      `${JS_API}.CONSUMER.CREATE.${EVENTS_STREAM}.${durable}.${filter}`,
      `${JS_API}.CONSUMER.MSG.NEXT.${EVENTS_STREAM}.${durable}`,
      `$JS.ACK.${EVENTS_STREAM}.${durable}.>`,
    ]),
  ];
}

/**
 * The permissions of an identity, from libs/contracts/src/nats-flows.ts. A service subscribes to
 * its own request subjects and its own inbox; it publishes the requests it makes, its own events
 * and the JetStream API calls of its own consumers; replies go through `allow_responses`. The
 * operator (admin CLI) asks every service (the gateway for workspaces, members and keys), is the
 * one identity that provisions the stream (creates it and brings its settings up to date, before
 * any service starts) and reads the workspaces' events that the webhooks service publishes once
 * stored (`listen`); only the webhooks service publishes those.
 */
export function permissionsFor(identity: NatsIdentity): NatsPermissions {
  if (identity === 'operator') {
    return {
      publish: [
        ...SERVICE_NAMES.map((s) => `${s}.>`),
        `${JS_API}.>`,
        `$JS.ACK.${EVENTS_STREAM}.>`,
      ],
      subscribe: [`${natsInboxPrefix(identity)}.>`, `${WORKSPACE_EVENTS_PREFIX}*`],
    };
  }
  const service: ServiceName = identity;
  const broadcasts = service === 'webhooks' ? [NATS_BROADCASTS.webhookEndpointDeleted, `${WORKSPACE_EVENTS_PREFIX}*`] : service === 'gateway' ? [NATS_BROADCASTS.keysChanged] : [];
  return {
    publish: [
      ...NATS_CALLS[service],
      ...broadcasts,
      ...NATS_EVENT_OWNERS[service].map(eventSubject),
      ...jetstreamGrants(NATS_DURABLES[service]),
    ],
    subscribe: [
      `${service}.>`,
      `${natsInboxPrefix(identity)}.>`,
    ],
  };
}

export interface NatsUser {
  /** Who it is (a comment in the configuration). */
  name?: string;
  publicKey: string;
  permissions: NatsPermissions;
}

export interface NatsServerConfigOptions {
  host: string;
  port: number;
  storeDir: string;
  users: NatsUser[];
  tls?: { certFile: string; keyFile: string; caFile?: string; verify?: boolean };
  /**
   * One node of a NATS cluster: its name (unique in the cluster, JetStream's peer name), the port
   * its routes listen on (on `host`), and the other nodes' route URLs (`nats-route://host:port`).
   */
  cluster?: { name: string; serverName: string; port: number; routes: string[] };
  /**
   * Where the server writes `<binary>_<pid>.ports` (its client URLs) once it listens: the proof a
   * starter waits for that the process it started, not some other one, holds the port.
   */
  portsFileDir?: string;
}

/**
 * How long (seconds) a client has to sign the server's nonce: the default (1-2 s) failed clients
 * whose event loop was busy (a process starting under load) with "Authentication Timeout".
 */
const NATS_AUTH_TIMEOUT_SECONDS = 10;

/**
 * How long (seconds) a client has to finish the TLS handshake, from its connection's start (the
 * `tls` block's `timeout`). nats-server's default is 2 s (measured on 2.9.10: an idle TLS client
 * closed at 1.98 s); a client whose event loop is busy (a service starting under load, a test
 * runner's worker) sends its certificate and Finished later. With TLS 1.3 the client counts the
 * handshake done as soon as it has sent them, so a server that gives up after that closes a
 * connection the client believes open, and nats.js waits out its whole connect timeout (20 s) for
 * the PONG and fails with TimeoutError. As long as the authentication's: a slow client gets the
 * same time to finish either step, and an unauthenticated connection is held no longer than
 * the authentication timeout already allows.
 */
export const NATS_TLS_TIMEOUT_SECONDS = NATS_AUTH_TIMEOUT_SECONDS;

/**
 * nats-server's configuration: JetStream, and NKEY users with subject permissions; anonymous
 * connections are refused (no `no_auth_user`). `npm start`, the tests and the Kubernetes example
 * (k8s/examples/nats) use this same generator.
 */
export function natsServerConfig(options: NatsServerConfigOptions): string {
  const list = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;
  const users = options.users.map(
    (user) =>
      (user.name ? `    # ${user.name}\n` : '') +
      `    { nkey: ${JSON.stringify(user.publicKey)}, permissions: { publish: { allow: ${list(user.permissions.publish)} }, ` +
      `subscribe: { allow: ${list(user.permissions.subscribe)} }, allow_responses: true } }`,
  );
  const tls = options.tls
    ? [
        'tls {',
        `  cert_file: ${JSON.stringify(options.tls.certFile)}`,
        `  key_file: ${JSON.stringify(options.tls.keyFile)}`,
        ...(options.tls.caFile ? [`  ca_file: ${JSON.stringify(options.tls.caFile)}`] : []),
        ...(options.tls.verify ? ['  verify: true'] : []),
        `  timeout: ${NATS_TLS_TIMEOUT_SECONDS}`,
        '}',
      ]
    : [];
  const cluster = options.cluster
    ? [
        `server_name: ${JSON.stringify(options.cluster.serverName)}`,
        'cluster {',
        `  name: ${JSON.stringify(options.cluster.name)}`,
        `  listen: ${JSON.stringify(`${options.host}:${options.cluster.port}`)}`,
        `  routes: ${list(options.cluster.routes)}`,
        '}',
      ]
    : [];
  return [
    `host: ${JSON.stringify(options.host)}`,
    `port: ${options.port}`,
    ...(options.portsFileDir ? [`ports_file_dir: ${JSON.stringify(options.portsFileDir)}`] : []),
    ...cluster,
    `jetstream { store_dir: ${JSON.stringify(options.storeDir)} }`,
    ...tls,
    'authorization {',
    `  timeout: ${NATS_AUTH_TIMEOUT_SECONDS}`,
    '  users = [',
    users.join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}

/**
 * The NATS Helm chart's values overlay that closes the bus in Kubernetes (k8s/examples/nats): the
 * same `authorization` block as natsServerConfig (the identities' NKEY users with the permissions
 * of permissionsFor, the 10 s authentication timeout, no anonymous user), under the chart's
 * `config.merge`, which it merges into the nats.conf it renders. Given with `-f` after
 * k8s/examples/nats/values.yaml. YAML whose values are JSON (subjects quoted, lists in brackets).
 */
export function natsHelmValues(users: NatsUser[]): string {
  const list = (items: string[]) => `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;
  const entries = users.flatMap((user) => [
    ...(user.name ? [`        # ${user.name}`] : []),
    `        - nkey: ${JSON.stringify(user.publicKey)}`,
    '          permissions:',
    `            publish: { allow: ${list(user.permissions.publish)} }`,
    `            subscribe: { allow: ${list(user.permissions.subscribe)} }`,
    '            allow_responses: true',
  ]);
  return [
    '# Generated by `npm run -s nats:config -- --helm-values` from libs/contracts/src/nats-flows.ts',
    "# and the mesh's identities: the NATS Helm chart's overlay that admits only them, each with its",
    '# subjects. helm upgrade --install nats nats/nats -f k8s/examples/nats/values.yaml -f <this file>',
    'config:',
    '  merge:',
    '    authorization:',
    `      timeout: ${NATS_AUTH_TIMEOUT_SECONDS}`,
    '      users:',
    ...entries,
    '',
  ].join('\n');
}

/** Where `npm start` keeps this checkout's identities (relative to the repository root). */
export const LOCAL_NATS_IDENTITY_DIR = '.data/nats/identities';
/** Where `npm start` records the URL of the bus it runs for this checkout (NATS_URL unset). */
export const LOCAL_NATS_URL_FILE = '.data/nats/url';

export interface NatsIdentityFiles {
  dir: string;
  /** Seed file of each identity (mode 0600): `<dir>/<identity>.nk`, or `<dir>/<identity>/seed` (perIdentityDir). */
  seedFile(identity: NatsIdentity): string;
  users: NatsUser[];
}

/** The seed's file name in an identity's own directory (`perIdentityDir`; lim-config's NATS_NKEY_SEED_FILE names it too). */
export const NATS_SEED_FILE_NAME = 'seed';

/**
 * The mesh's identities in a directory: one NKEY seed per identity, made once and kept (a restart
 * of `npm start` keeps its identities), and the nats-server users they stand for.
 * `perIdentityDir`: each seed in a directory of its own (`<dir>/<identity>/seed`, mode 0700), so
 * that a container can be given its own directory and sees no other identity's seed
 * (docker-compose.yml mounts each service's as a volume's subpath); otherwise `<dir>/<identity>.nk`.
 */
export function ensureNatsIdentities(dir: string, options: { perIdentityDir?: boolean } = {}): NatsIdentityFiles {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const seedFile = (identity: NatsIdentity) => (options.perIdentityDir ? join(dir, identity, NATS_SEED_FILE_NAME) : join(dir, `${identity}.nk`));
  const users = NATS_IDENTITIES.map((identity) => {
    const file = seedFile(identity);
    if (!existsSync(file)) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${new TextDecoder().decode(nkeys.createUser().getSeed())}\n`, { mode: 0o600 });
    }
    chmodSync(file, 0o600);
    return { name: identity, publicKey: nkeyPublicKey(readFileSync(file, 'utf8').trim()), permissions: permissionsFor(identity) };
  });
  return { dir, seedFile, users };
}
