import type { ServiceName } from '@app/contracts/subjects';
import { freePort, httpReady, RunningApp, spawnApp, waitFor } from '../../tools/mesh/processes';
import { TcpProxy } from '../../tools/mesh/tcp-proxy';
import { HARNESS, PG_SERVER_URL, TestMesh } from '../harness';

/**
 * A replica of `service` started beside the mesh's own whose database connections go through a
 * TCP proxy to the real PostgreSQL, which the test cuts, stalls and restores (a failover, a stalled
 * primary). It probes its database every 200 ms. Its output lines are kept in `log`.
 */
export async function startBehindDatabaseProxy(mesh: TestMesh, service: ServiceName, env: Record<string, string> = {}): Promise<{ proxy: TcpProxy; app: RunningApp; log: string[] }> {
  const server = new URL(PG_SERVER_URL);
  const proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
  const viaProxy = new URL(mesh.databaseUrl(service));
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const log: string[] = [];
  const app = spawnApp(service, { ...mesh.env, [`${service.toUpperCase()}_DATABASE_URL`]: viaProxy.toString(), DB_PROBE_INTERVAL_MS: '200', ...env }, await freePort(), (line) => log.push(line));
  await waitFor(`${service} behind the proxy`, () => httpReady(app.port), HARNESS.readyTimeoutMs);
  return { proxy, app, log };
}
