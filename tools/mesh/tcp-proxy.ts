import { createConnection, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy on loopback that tests and tools take apart: `cut()` destroys every live
 * connection and refuses new ones (a database host that went away, as its clients see it);
 * `restore()` forwards again. `stall()` holds what clients send, on live and new connections
 * alike, without closing anything (a database too slow to answer); `unstall()` forwards what was
 * held. `follow(port)` leads new connections to another port and cuts the live ones (a service
 * endpoint moved to a promoted standby: tools/mesh/pg-pair.ts).
 */
export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private open = true;
  private stalled = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly targetHost: string,
    private targetPort: number,
  ) {}

  /** Listens on `listenPort` (default: any free port) of 127.0.0.1. */
  static async start(targetHost: string, targetPort: number, listenPort = 0): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy?.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenPort, '127.0.0.1', resolve);
    });
    const address = server.address();
    proxy = new TcpProxy(server, typeof address === 'object' && address ? address.port : listenPort, targetHost, targetPort);
    return proxy;
  }

  cut(): void {
    this.open = false;
    this.dropLive();
  }

  follow(targetPort: number): void {
    this.targetPort = targetPort;
    this.dropLive();
  }

  restore(): void {
    this.open = true;
  }

  stall(): void {
    if (this.stalled) return;
    this.stalled = true;
    for (const [client, upstream] of this.pairs) client.unpipe(upstream);
  }

  /** Forwards again; a proxy that is not stalled is left as it is (piping twice would send each byte twice). */
  unstall(): void {
    if (!this.stalled) return;
    this.stalled = false;
    for (const [client, upstream] of this.pairs) client.pipe(upstream);
  }

  /** The connections it forwards (or holds) now. */
  get connections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private dropLive(): void {
    for (const pair of this.pairs) for (const socket of pair) socket.destroy();
    this.pairs.clear();
  }

  private forward(client: Socket): void {
    if (!this.open) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(this.targetPort, this.targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    for (const socket of pair) {
      // as a kernel proxy (kube-proxy, a cloud load balancer) forwards: each write at once, not held
      // by Nagle's algorithm for the peer's delayed ACK (tens of ms per round trip of the pg protocol)
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    if (this.stalled) client.pause();
    else client.pipe(upstream);
    upstream.pipe(client);
  }
}
