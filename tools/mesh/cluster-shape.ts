import { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ServiceName } from '@app/contracts';
import { DEFAULT_HTTP_PORTS, ensureNatsIdentities, eventsStreamSettings, NatsIdentityFiles, natsServers } from '@app/platform';
import { GatewayProxy } from './ingress';
import { failoverWatchSettings, FailoverWatchSettings, PgPair } from './pg-pair';
import {
  APPS, freePort, httpReady, inLanes, MESH_NATS_IDENTITY_DIR, probeIdentity, provisionBus, readyWithinMs, RunningApp, spawnApp, startNatsServer, stopApp, tcpAnswers, waitFor,
} from './processes';

/**
 * The shape production runs (docs/deployment.md), on one machine: three nats-servers clustered
 * through routes with JetStream (the EVENTS stream at 3 replicas), `replicas` processes of every
 * service and `gateways` gateways, each process given the full server list starting at a
 * different node in turn, and PostgreSQL as a primary with a synchronous streaming standby behind
 * the `rw`/`ro` endpoints CloudNativePG gives (PgPair), and Debian's nginx in front of the
 * gateways configured as the prod Ingress is (GatewayProxy, tools/mesh/ingress.ts). Search reads its pages on the standby
 * (`ro`), as production's search reads them on a replica. `npm run cluster` and
 * `npm run chaos -- --cluster` run it.
 */
/** How many of its last lines a process that exits during start-up is reported with. */
const START_FAILURE_LINES = 20;

/** What `npm run cluster` and `chaos --cluster` run, and so what their figures show (k8s/ must give at least as much). */
export const CLUSTER_SHAPE = { natsNodes: 3, eventsReplicas: 3, replicas: 2, gateways: 2, postgres: { instances: 2, synchronous: true } } as const;

export interface ClusterOptions {
  /** State: the NATS nodes' stores, the PostgreSQL clusters (made anew). */
  dir: string;
  /** The environment every process gets on top of the cluster's own (settings, LOG_LEVEL, PATH). */
  env: NodeJS.ProcessEnv;
  dbPrefix: string;
  /** The mesh's NATS identities (default `<dir>/identities`); `npm run cluster` keeps `npm start`'s. */
  identityDir?: string;
  /** Processes of every service but the gateway (2). */
  replicas?: number;
  gateways?: number;
  /**
   * `fixed`: ports near the single mesh's defaults (gateways 3000, 3001, …; replica r of a service
   * its default + 100·(r-1); NATS 4231-4233, routes 6231-6233; PostgreSQL 5441-5444), for a person
   * to use. `free`: any free ports, for tests and runs beside another mesh.
   */
  ports?: 'fixed' | 'free';
  /** Each line a process writes, with its id (`crm-2`). Default: dropped. */
  output?: (id: string, line: string) => void;
  /**
   * Where the PostgreSQL pair keeps its two clusters (made anew). Default: `<dir>/postgres`. A
   * run that measures the mesh rather than the machine's disk may put them on tmpfs (`/dev/shm/…`).
   */
  pgDir?: string;
  /**
   * The watcher that fails the pair over when its primary stops answering (PgPair.watch), as
   * CloudNativePG does; default: the shipped CloudNativePG examples' settings (SHIPPED_FAILOVER_DETECTION), or the PG_PAIR_* variables.
   */
  failoverWatch?: FailoverWatchSettings;
  say?: (line: string) => void;
}

export interface NatsNode {
  id: string;
  port: number;
  clusterPort: number;
  dir: string;
  child?: ChildProcess;
}

export interface ClusterApp {
  /** `<service>-<n>`, n from 1. */
  id: string;
  name: ServiceName;
  port: number;
  /** The NATS_URL it runs with: every node, its own first. */
  natsUrl: string;
  running?: RunningApp;
}

export class MeshCluster {
  /** The probe identity's connection options on a node (tests' and tools' own, may do anything). */
  readonly probe = probeIdentity();
  private stopping = false;
  /** nginx in front of the gateways, as the prod Ingress (GatewayProxy), started once they are ready. */
  proxy?: GatewayProxy;

  private constructor(
    readonly options: Required<Omit<ClusterOptions, 'output' | 'say' | 'identityDir' | 'pgDir' | 'failoverWatch'>> & Pick<ClusterOptions, 'output' | 'say' | 'pgDir' | 'failoverWatch'>,
    readonly identities: NatsIdentityFiles,
    readonly nats: NatsNode[],
    readonly pg: PgPair,
    readonly apps: ClusterApp[],
  ) {}

  static async start(options: ClusterOptions): Promise<MeshCluster> {
    const opts = { replicas: CLUSTER_SHAPE.replicas, gateways: CLUSTER_SHAPE.gateways, ports: 'free' as const, ...options };
    const say = opts.say ?? (() => undefined);
    rmSync(opts.dir, { recursive: true, force: true });
    mkdirSync(opts.dir, { recursive: true });
    const fixed = opts.ports === 'fixed';
    const port = async (wanted: number) => (fixed ? wanted : freePort());
    const identities = ensureNatsIdentities(opts.identityDir ?? join(opts.dir, 'identities'));

    const pg = await PgPair.start(opts.pgDir ?? join(opts.dir, 'postgres'), {
      primary: await port(5441), standby: await port(5442), rw: await port(5443), ro: await port(5444),
    });
    const watch = pg.watch(opts.failoverWatch ?? failoverWatchSettings(), (failover) =>
      say(`PostgreSQL: the primary stopped answering (${failover.failedProbes} probes failed in a row); the standby promoted, rw and ro follow it`));
    say(`PostgreSQL: primary on ${pg.primary.port}, synchronous streaming standby on ${pg.standby?.port}; rw ${pg.rwUrl}, ro ${pg.roUrl}; failover when the primary fails ${watch.settings.failureThreshold} probes in a row, one every ${watch.settings.probeIntervalMs} ms (timeout ${watch.settings.probeTimeoutMs} ms)`);

    const nats: NatsNode[] = [];
    for (let i = 1; i <= CLUSTER_SHAPE.natsNodes; i++) {
      nats.push({ id: `nats-${i}`, port: await port(4230 + i), clusterPort: await port(6230 + i), dir: join(opts.dir, `nats-${i}`) });
    }
    const apps: ClusterApp[] = [];
    let turn = 0;
    for (const name of APPS) {
      const count = name === 'gateway' ? opts.gateways : opts.replicas;
      for (let r = 1; r <= count; r++) {
        const wanted = name === 'gateway' ? DEFAULT_HTTP_PORTS.gateway + (r - 1) : DEFAULT_HTTP_PORTS[name] + 100 * (r - 1);
        apps.push({ id: `${name}-${r}`, name, port: await port(wanted), natsUrl: serverList(nats, turn++ % nats.length) });
      }
    }
    const cluster = new MeshCluster(opts, identities, nats, pg, apps);
    try {
      // every start settled before a failure is thrown: a node or process still starting when another
      // failed would not be recorded yet, and stop() would leave it running
      await inLanes(nats, nats.length, (node) => cluster.startNats(node));
      await cluster.awaitJetStream();
      say(`NATS: ${nats.map((n) => `${n.id} 127.0.0.1:${n.port}`).join(', ')} (one cluster, JetStream, EVENTS at 3 replicas)`);
      await inLanes(apps, apps.length, (app) => cluster.startFirst(app, fixed));
      cluster.proxy = await GatewayProxy.start(join(opts.dir, 'nginx'), apps.filter((a) => a.name === 'gateway').map((a) => a.port), await port(3080));
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Every node's URL, the first node first (the admin CLI's and the tests' NATS_URL). */
  get natsUrl(): string {
    return serverList(this.nats, 0);
  }

  /** The environment of the operator's tools (admin CLI): the cluster's bus and databases, the operator identity. */
  get env(): NodeJS.ProcessEnv {
    return {
      ...this.options.env,
      DATABASE_URL: this.pg.rwUrl,
      DB_PREFIX: this.options.dbPrefix,
      NATS_URL: this.natsUrl,
      NATS_NKEY_SEED_FILE: this.identities.seedFile('operator'),
    };
  }

  /** The API through nginx in front of the gateways (what clients use). */
  get apiUrl(): string {
    if (!this.proxy) throw new Error('the cluster is not started');
    return this.proxy.url;
  }

  /**
   * Search's database through the `ro` endpoint (the standby while there is one): its pages are
   * read there (SEARCH_READ_DATABASE_URL), and on the primary when it does not answer.
   */
  get searchReadUrl(): string {
    const url = new URL(this.pg.roUrl);
    url.pathname = `/${this.options.dbPrefix}search`;
    return url.toString();
  }

  get gatewayUrls(): string[] {
    return this.apps.filter((a) => a.name === 'gateway').map((a) => `http://127.0.0.1:${a.port}/api/v1`);
  }

  app(id: string): ClusterApp {
    const app = this.apps.find((a) => a.id === id);
    if (!app) throw new Error(`no process ${id} in the cluster`);
    return app;
  }

  node(id: string): NatsNode {
    const node = this.nats.find((n) => n.id === id);
    if (!node) throw new Error(`no NATS node ${id} in the cluster`);
    return node;
  }

  /**
   * The first start of a process. A free port chosen at the cluster's start can be taken before the
   * process listens on it (the outgoing connections of every process on the machine draw their
   * local ports from the same ephemeral range): with ports of its own choosing, the cluster gives a
   * process that exits on EADDRINUSE another free port and starts it again (nginx in front of the
   * gateways is configured after, with the ports they got).
   */
  private async startFirst(app: ClusterApp, fixed: boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.startApp(app.id);
        return;
      } catch (err) {
        if (fixed || attempt >= 3 || !/EADDRINUSE/.test((err as Error).message)) throw err;
        app.port = await freePort();
      }
    }
  }

  /** Starts process `id`; `overrides` on top of its environment (a value undefined: the setting unset). */
  async startApp(id: string, overrides: NodeJS.ProcessEnv = {}): Promise<RunningApp> {
    const app = this.app(id);
    const env: NodeJS.ProcessEnv = {
      ...this.env,
      NATS_URL: app.natsUrl,
      [MESH_NATS_IDENTITY_DIR]: this.identities.dir,
      EVENTS_STREAM_REPLICAS: String(CLUSTER_SHAPE.eventsReplicas),
      // search pages read on the standby (issue 25), as the prod overlay reads them through the -ro Service
      ...(app.name === 'search' ? { SEARCH_READ_DATABASE_URL: this.searchReadUrl } : {}),
      ...overrides,
    };
    const output = this.options.output;
    // the last lines it wrote, to say why when it exits before it is ready
    const last: string[] = [];
    const running = spawnApp(app.name, env, app.port, (line) => {
      last.push(line);
      if (last.length > START_FAILURE_LINES) last.shift();
      output?.(app.id, line);
    });
    app.running = running;
    const exited = running.exited.then((code) => {
      throw new Error(`${app.id} exited with ${code} during start-up${last.length ? `; its last lines:\n${last.join('\n')}` : ''}`);
    });
    await Promise.race([waitFor(`${app.id} readiness`, () => httpReady(app.port), readyWithinMs(app.name, 180_000), 200), exited]);
    exited.catch(() => undefined);
    return running;
  }

  /** SIGKILL: the process dies mid-work. */
  async killApp(id: string): Promise<void> {
    const running = this.app(id).running;
    if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
    running.child.kill('SIGKILL');
    await running.exited;
  }

  /** SIGTERM and its drain (a rolling restart's step). */
  async stopApp(id: string): Promise<number | null> {
    const running = this.app(id).running;
    return running ? stopApp(running, 30_000) : null;
  }

  async startNats(node: NatsNode): Promise<void> {
    mkdirSync(node.dir, { recursive: true });
    const routes = this.nats.filter((n) => n !== node).map((n) => `nats-route://127.0.0.1:${n.clusterPort}`);
    const server = await startNatsServer(node.port, node.dir, {
      extraUsers: [this.probe.user],
      identityDir: this.identities.dir,
      cluster: { name: 'lim', serverName: node.id, port: node.clusterPort, routes },
    });
    node.child = server.child;
  }

  /** SIGKILL of one nats-server. */
  async killNats(id: string): Promise<void> {
    const node = this.node(id);
    if (!node.child || node.child.exitCode !== null || node.child.signalCode !== null) return;
    const gone = new Promise((resolve) => node.child!.once('exit', resolve));
    node.child.kill('SIGKILL');
    await gone;
    await waitFor(`${id} closed`, async () => !(await tcpAnswers('127.0.0.1', node.port, 200)), 5000, 50);
  }

  /** The node that leads the EVENTS stream's replicas now. */
  async eventsLeader(): Promise<string | undefined> {
    return this.withProbe(async (nc) => (await (await jetstreamManager(nc)).streams.info('EVENTS')).cluster?.leader);
  }

  /** The probe, connected to any node that answers. */
  async withProbe<T>(work: (nc: NatsConnection) => Promise<T>): Promise<T> {
    const nc = await connect({ ...this.probe.options(this.natsUrl), servers: natsServers(this.natsUrl), timeout: 3000 });
    try {
      return await work(nc);
    } finally {
      await nc.close();
    }
  }

  /**
   * Until the cluster has elected its JetStream meta leader, creating a stream fails: provision
   * EVENTS at 3 replicas as the operator (the services may not create it), retrying until then.
   */
  private async awaitJetStream(): Promise<void> {
    await provisionBus(this.natsUrl, this.identities, { settings: { ...eventsStreamSettings(this.options.env), replicas: CLUSTER_SHAPE.eventsReplicas } });
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.proxy?.close();
    await Promise.all(this.apps.map((app) => (app.running ? stopApp(app.running, 10_000) : null)));
    for (const node of this.nats) node.child?.kill('SIGTERM');
    await this.pg.stop();
  }

  /** Writes where the admin CLI finds the bus (as `npm start` does). */
  writeUrlFile(file: string): void {
    writeFileSync(file, `${this.natsUrl}\n`);
  }
}

/** A NATS_URL naming every node, starting at node `first` and going round. */
function serverList(nodes: NatsNode[], first: number): string {
  return nodes.map((_, i) => `nats://127.0.0.1:${nodes[(first + i) % nodes.length].port}`).join(',');
}
