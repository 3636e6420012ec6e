import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tcpAnswers, waitFor } from './processes';

/**
 * The reverse proxy in front of the gateways, described once: the prod Ingress's
 * `nginx.ingress.kubernetes.io/*` annotations (k8s/overlays/prod/ingress.yaml, checked equal to
 * ingressAnnotations() by test/mesh/ingress.integration-spec.ts) and the nginx.conf that
 * `npm run cluster` and `npm run chaos -- --cluster` put in front of their gateways (Debian's
 * nginx, nginxConfig()), so the local runs measure what ingress-nginx does in production.
 *
 * When a request goes to another gateway is nginx's rule, as ingress-nginx keeps it: after an
 * `error` (refused, reset or closed before the answer's header) or a `timeout`, to the next
 * gateway, at most `nextUpstreamTries` in all; but a POST or PATCH that reached a gateway is
 * never sent to another (nginx passes a non-idempotent request on only when it was not sent), its
 * caller gets a 502, and packages/client sends it again with the same Idempotency-Key.
 */
export const GATEWAY_PROXY = {
  /** The Ingress's path: the API, nothing else of the gateway (health and metrics stay inside). */
  path: '/api/',
  /** Request bodies up to the gateway's own limit (BODY_LIMIT_BYTES, 1 MiB). */
  bodySize: '1m',
  /** nginx's `proxy_next_upstream`: to another gateway after a connection error or a timeout only (not after an answer). */
  nextUpstream: ['error', 'timeout'],
  nextUpstreamTries: 3,
  /** 0: no limit on the time the tries take but each one's own timeouts. */
  nextUpstreamTimeoutSeconds: 0,
  /** Connecting to a gateway; past it, the next gateway is tried. */
  connectTimeoutSeconds: 5,
  sendTimeoutSeconds: 60,
  /** Between two reads of an answer: longer than a request's RPC deadline and the event stream's heartbeat. */
  readTimeoutSeconds: 60,
  /** Answers are passed on as they come: the event stream (GET /events/stream) is not held back. */
  buffering: false,
} as const;

/**
 * What ingress-nginx's controller does by default that the local nginx.conf repeats: HTTP/1.1 to
 * the upstreams with kept-alive connections (its `upstream-keepalive-*` ConfigMap defaults; a
 * gateway keeps an idle connection 72 s, longer than these 60 s, so nginx closes it first), the
 * forwarded headers it sets, and no memory of a gateway's failures: its Lua balancer
 * (rootfs/etc/nginx/lua/balancer.lua) picks each try's endpoint round the ready ones anew, where
 * a plain nginx `server` line would skip a gateway for 10 s after one refused connection
 * (`max_fails=1 fail_timeout=10s`, nginx's default), and answer 502 "no live upstreams" while the
 * other restarts in those 10 s (a rolling restart). `max_fails=0` turns that off.
 */
const CONTROLLER_DEFAULTS = { keepaliveConnections: 320, keepaliveRequests: 10_000, keepaliveTimeoutSeconds: 60, maxFails: 0 } as const;

const ANNOTATION = 'nginx.ingress.kubernetes.io/';

/** The prod Ingress's nginx annotations, as GATEWAY_PROXY says. */
export function ingressAnnotations(): Record<string, string> {
  const p = GATEWAY_PROXY;
  return {
    [`${ANNOTATION}proxy-body-size`]: p.bodySize,
    [`${ANNOTATION}proxy-next-upstream`]: p.nextUpstream.join(' '),
    [`${ANNOTATION}proxy-next-upstream-tries`]: String(p.nextUpstreamTries),
    [`${ANNOTATION}proxy-next-upstream-timeout`]: String(p.nextUpstreamTimeoutSeconds),
    [`${ANNOTATION}proxy-connect-timeout`]: String(p.connectTimeoutSeconds),
    [`${ANNOTATION}proxy-send-timeout`]: String(p.sendTimeoutSeconds),
    [`${ANNOTATION}proxy-read-timeout`]: String(p.readTimeoutSeconds),
    [`${ANNOTATION}proxy-buffering`]: p.buffering ? 'on' : 'off',
  };
}

/** The annotations of an Ingress that are ingress-nginx's (what ingressAnnotations() owns). */
export function nginxAnnotationsOf(annotations: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([name]) => name.startsWith(ANNOTATION)));
}

/** The response header the local proxy adds: seconds from sending to a gateway to its answer's header, per gateway tried. */
export const UPSTREAM_TIME_HEADER = 'x-upstream-header-time';

export interface NginxConfigOptions {
  /** Where nginx keeps its pid, logs and temporary files. */
  dir: string;
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** The gateways' ports on 127.0.0.1. */
  gatewayPorts: number[];
}

/**
 * The nginx.conf of the local runs: the Ingress's rules (GATEWAY_PROXY) and the controller's
 * defaults, one worker (the machine's cores are the mesh's), no access log, and one header the
 * Ingress does not add (UPSTREAM_TIME_HEADER), which tells the gateways' time from the client's.
 */
export function nginxConfig(options: NginxConfigOptions): string {
  const p = GATEWAY_PROXY;
  const c = CONTROLLER_DEFAULTS;
  const dir = options.dir;
  return `# Generated by tools/mesh/ingress.ts from GATEWAY_PROXY, which the prod Ingress's annotations are checked against.
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/temp/body;
  proxy_temp_path ${dir}/temp/proxy;
  fastcgi_temp_path ${dir}/temp/fastcgi;
  uwsgi_temp_path ${dir}/temp/uwsgi;
  scgi_temp_path ${dir}/temp/scgi;
  upstream gateways {
${options.gatewayPorts.map((port) => `    server 127.0.0.1:${port} max_fails=${c.maxFails};`).join('\n')}
    keepalive ${c.keepaliveConnections};
    keepalive_requests ${c.keepaliveRequests};
    keepalive_timeout ${c.keepaliveTimeoutSeconds}s;
  }
  server {
    listen 127.0.0.1:${options.port};
    client_max_body_size ${p.bodySize};
    location ${p.path} {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_connect_timeout ${p.connectTimeoutSeconds}s;
      proxy_send_timeout ${p.sendTimeoutSeconds}s;
      proxy_read_timeout ${p.readTimeoutSeconds}s;
      proxy_buffering ${p.buffering ? 'on' : 'off'};
      proxy_next_upstream ${p.nextUpstream.join(' ')};
      proxy_next_upstream_tries ${p.nextUpstreamTries};
      proxy_next_upstream_timeout ${p.nextUpstreamTimeoutSeconds};
      add_header ${UPSTREAM_TIME_HEADER} $upstream_header_time always;
    }
    # the controller's default backend: any other path is not the API's
    location / {
      return 404;
    }
  }
}
`;
}

/** Debian's nginx (apt-get install nginx; .ci/run installs it), or NGINX_BIN. */
export function findNginx(): string | null {
  for (const candidate of [process.env.NGINX_BIN, '/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx']) if (candidate && existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

function requireNginx(): string {
  const binary = findNginx();
  if (!binary) throw new Error('nginx not found: the cluster puts it in front of the gateways as the Ingress is; install it (Debian: apt-get install nginx) or set NGINX_BIN');
  return binary;
}

/**
 * Writes the configuration into `options.dir` and returns its path. nginx makes the temporary
 * directories in `<dir>/temp` itself, owned by its worker's user (`nobody` under root), which
 * writes a request body larger than its buffer there: `dir` must be open to that user.
 */
export function writeNginxConfig(options: NginxConfigOptions): string {
  mkdirSync(join(options.dir, 'temp'), { recursive: true });
  const file = join(options.dir, 'nginx.conf');
  writeFileSync(file, nginxConfig(options));
  return file;
}

/** `nginx -t` on a configuration: its exit status and what it printed. */
export function testNginxConfig(file: string, dir: string): { status: number | null; output: string } {
  const out = spawnSync(requireNginx(), ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', file], { encoding: 'utf8' });
  return { status: out.status, output: `${out.stdout}${out.stderr}` };
}

/** nginx in front of the gateways, as the prod Ingress (GATEWAY_PROXY). */
export class GatewayProxy {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly dir: string,
  ) {}

  /** Starts nginx on 127.0.0.1:`port` in front of `gatewayPorts`, its files in `dir`. */
  static async start(dir: string, gatewayPorts: number[], port: number): Promise<GatewayProxy> {
    const binary = requireNginx();
    const file = writeNginxConfig({ dir, port, gatewayPorts });
    const child = spawn(binary, ['-p', dir, '-e', join(dir, 'error.log'), '-c', file, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`nginx exited with ${code}: ${stderr.trim()} (config ${file})`))));
    await Promise.race([waitFor(`nginx on ${port}`, () => tcpAnswers('127.0.0.1', port), 10_000, 50), exited]);
    exited.catch(() => undefined);
    return new GatewayProxy(child, port, dir);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Stops nginx and waits for it. SIGTERM, nginx's fast shutdown: its master stops the worker
   * before it exits (a SIGKILLed master would leave the worker holding the port), without waiting
   * for open streams.
   */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await gone;
  }
}
