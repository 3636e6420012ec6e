import { createConnection, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy a test can cut: `cut()` destroys every live connection and refuses new ones (a
 * database host that went away, as its clients see it); `restore()` forwards again. `stall()`
 * holds what clients send, on live and new connections alike, without closing anything (a
 * database too slow to answer); `unstall()` forwards what was held.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<[Socket, Socket]>();
  private open = true;
  private stalled = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy?.forward(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    proxy = new TcpProxy(server, typeof address === 'object' && address ? address.port : 0);
    return proxy;
  }

  cut(): void {
    this.open = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.open = true;
  }

  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) client.unpipe(upstream);
  }

  unstall(): void {
    this.stalled = false;
    for (const [client, upstream] of this.pairs) client.pipe(upstream);
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private forward(client: Socket, host: string, port: number): void {
    if (!this.open) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(port, host);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    for (const socket of pair) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
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
