import { connect, NatsConnection } from '@nats-io/transport-node';
import { ServerNats } from '@nestjs/microservices';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  const nc = await connect({
    servers: url,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    // no Error (stack capture) built per request and per subscription timer: callers wrap failures with their own context
    noAsyncTraces: true,
  });
  return coalesceWrites(nc);
}

interface CorkableSocket {
  write(...args: unknown[]): boolean;
  cork(): void;
  uncork(): void;
  __coalesced?: boolean;
}

/**
 * Coalesces a connection's socket writes per event-loop turn: the client flushes its buffer once
 * per microtask, so under load every request handled in its own I/O callback cost one write
 * syscall; corked until `setImmediate`, everything published while this turn's I/O callbacks ran
 * goes out in one `writev`. Adds at most one loop turn of latency. `NATS_COALESCE_WRITES=off`
 * switches it off. Re-applied after a reconnect (a new socket).
 */
export function coalesceWrites(nc: NatsConnection): NatsConnection {
  if (process.env.NATS_COALESCE_WRITES === 'off') return nc;
  const patch = () => {
    const socket = (nc as unknown as { protocol?: { transport?: { socket?: CorkableSocket } } }).protocol?.transport?.socket;
    if (!socket || socket.__coalesced || typeof socket.cork !== 'function') return;
    socket.__coalesced = true;
    const write = socket.write;
    let corked = false;
    socket.write = function (this: CorkableSocket, ...args: unknown[]) {
      if (!corked) {
        corked = true;
        this.cork();
        setImmediate(() => {
          corked = false;
          this.uncork();
        });
      }
      return write.apply(this, args);
    };
  };
  patch();
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') patch();
  })().catch(() => undefined);
  return nc;
}

/** Nest's NATS server (request-reply handlers) on a connection whose writes are coalesced. */
export class CoalescingServerNats extends ServerNats {
  async createNatsClient(): Promise<Awaited<ReturnType<ServerNats['createNatsClient']>>> {
    const nc = await super.createNatsClient();
    coalesceWrites(nc as unknown as NatsConnection);
    return nc;
  }
}
