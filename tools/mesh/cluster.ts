import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, LOCAL_NATS_IDENTITY_DIR, LOCAL_NATS_URL_FILE } from '@app/platform';
import { MeshCluster } from './cluster-shape';
import { ROOT } from './processes';

/**
 * `npm run cluster`: the shape production runs, on this machine (tools/mesh/cluster-shape.ts):
 * three clustered nats-servers with JetStream, two processes of every service and two gateways
 * behind nginx configured as the prod Ingress (tools/mesh/ingress.ts), PostgreSQL as a primary with a synchronous streaming standby (search reads
 * its pages there). Prints where everything is; stops
 * everything on Ctrl-C. State in .data/cluster (made anew each start); the mesh's NATS identities
 * are `npm start`'s (.data/nats/identities), and .data/nats/url names the cluster's nodes, so
 * `npm run -s admin -- …` reaches it as it reaches `npm start`'s mesh.
 */
const say = (line: string) => process.stdout.write(`[cluster] ${line}\n`);

async function main(): Promise<void> {
  const verbose = process.argv.includes('--logs');
  mkdirSync(join(ROOT, '.data', 'nats'), { recursive: true });
  const cluster = await MeshCluster.start({
    dir: join(ROOT, '.data', 'cluster'),
    identityDir: join(ROOT, LOCAL_NATS_IDENTITY_DIR),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: process.env.LOG_LEVEL ?? (verbose ? 'info' : 'warn'), ...pick(process.env) },
    dbPrefix: process.env.DB_PREFIX ?? 'lim_',
    ports: process.env.CLUSTER_PORTS === 'free' ? 'free' : 'fixed',
    output: (id, line) => process.stdout.write(`[${id}] ${line}\n`),
    say,
  });
  cluster.writeUrlFile(join(ROOT, LOCAL_NATS_URL_FILE));
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping the cluster`);
    await cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  for (const app of cluster.apps) {
    void app.running?.exited.then((code) => !stopping && say(`${app.id} exited with ${code} (not restarted: npm run cluster leaves faults for you to see)`));
  }
  say(`all ${cluster.apps.length} processes ready`);
  say(`  API         ${cluster.apiUrl} (nginx in front of the gateways, as the prod Ingress)`);
  for (const url of cluster.gatewayUrls) say(`  gateway     ${url}`);
  for (const node of cluster.nats) say(`  NATS        ${node.id} nats://127.0.0.1:${node.port} (routes ${node.clusterPort})`);
  say(`  PostgreSQL  rw ${cluster.pg.rwUrl}, ro ${cluster.pg.roUrl} (primary ${cluster.pg.primary.port}, standby ${cluster.pg.standby?.port}; databases ${cluster.options.dbPrefix}<service>)`);
  say(`  backups     WAL archived into ${cluster.pg.archiveDir}, a base backup taken at start in ${join(cluster.pg.dir, 'backups')} (docs/runbooks.md, "Restore")`);
  say(`  search reads ${cluster.searchReadUrl} (SEARCH_READ_DATABASE_URL: pages on the standby, on the primary when it does not answer)`);
  for (const app of cluster.apps) say(`  ${app.id.padEnd(12)}http://127.0.0.1:${app.port}/health/ready  NATS ${app.natsUrl.split(',')[0]} first`);
  say('create a workspace and a key: npm run -s admin -- workspace:create --name Acme, then key:create --workspace <ws_id> --mode test');
}

/** Settings passed through to every process (anything the services read but the cluster's own). */
function pick(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = new Set(['NATS_URL', 'DATABASE_URL', 'DB_PREFIX', 'NATS_NKEY_SEED_FILE', 'NATS_NKEY_SEED', 'PORT']);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !own.has(name) && !/_HTTP_PORT$|_DATABASE_URL$/.test(name)));
}

main().catch((err: Error) => {
  process.stderr.write(`[cluster] ${err instanceof ConfigError ? 'configuration: ' : ''}${err.message}\n`);
  process.exit(1);
});
