import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './processes';
import { TcpProxy } from './tcp-proxy';

type Command = { op: 'follow'; port: number } | { op: 'close' };
/** The child's answer: to its start (with the port it listens on) and to each `follow`. */
type Reply = { ok: true; port?: number } | { ok: false; error: string };

/**
 * A TcpProxy in a process of its own (the built dist/tools/mesh/tcp-proxy-process.js, as the mesh
 * runs its services from dist/), for the PostgreSQL pair's `rw` and `ro` endpoints (pg-pair.ts):
 * in the process of the tool that started the pair, every service's database traffic crossed the
 * tool's event loop, which in the chaos run is also the load generator's (more than half of its
 * CPU, and its event-loop delay counted in every latency it measured; docs/benchmarks.md, Chaos,
 * 2026-11-30 19:06). CloudNativePG's services are kernel forwarding (kube-proxy), no hop of the
 * client's. `follow` and `close` as TcpProxy's, answered once the child has done them.
 */
export class TcpProxyProcess {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly child: ChildProcess, readonly port: number) {}

  /** Listens on `listenPort` of 127.0.0.1 (0: any free port) and forwards to targetHost:targetPort. */
  static async start(targetHost: string, targetPort: number, listenPort = 0): Promise<TcpProxyProcess> {
    const child = fork(join(ROOT, 'dist/tools/mesh/tcp-proxy-process.js'), [targetHost, String(targetPort), String(listenPort)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const reply = await new Promise<Reply>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Reply));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the TCP proxy process exited (${code}) before it listened`)));
    });
    if (!reply.ok || reply.port === undefined) throw new Error(`the TCP proxy process did not listen: ${reply.ok ? 'no port' : reply.error}`);
    child.removeAllListeners('exit');
    return new TcpProxyProcess(child, reply.port);
  }

  /** Leads new connections to `targetPort` and cuts the live ones (TcpProxy.follow). */
  follow(targetPort: number): Promise<void> {
    return this.ask({ op: 'follow', port: targetPort });
  }

  /** Cuts every connection, stops listening, and the process ends. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.queue;
    this.child.send({ op: 'close' } satisfies Command);
    await exited;
  }

  /** One command at a time, each answered in order. */
  private ask(command: Command): Promise<void> {
    const next = this.queue.then(() => new Promise<void>((resolve, reject) => {
      this.child.once('message', (message) => {
        const reply = message as Reply;
        if (reply.ok) resolve();
        else reject(new Error(reply.error));
      });
      this.child.send(command);
    }));
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** The child: argv targetHost targetPort listenPort; answers each command of its parent. */
async function serve(): Promise<void> {
  const [targetHost, targetPort, listenPort] = process.argv.slice(2);
  const reply = (message: Reply) => process.send?.(message);
  let proxy: TcpProxy;
  try {
    proxy = await TcpProxy.start(targetHost, Number(targetPort), Number(listenPort));
  } catch (err) {
    reply({ ok: false, error: (err as Error).message });
    process.exit(1);
  }
  // the parent gone (a tool killed): nothing is left forwarding
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: Command) => {
    if (message.op === 'follow') {
      proxy.follow(message.port);
      reply({ ok: true });
    } else if (message.op === 'close') {
      void proxy.close().then(() => process.exit(0));
    }
  });
  reply({ ok: true, port: proxy.port });
}

if (require.main === module) void serve();
