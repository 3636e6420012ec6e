import { connect, NatsConnection } from '@nats-io/transport-node';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: url,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    // no Error (stack capture) built per request and per subscription timer: callers wrap failures with their own context
    noAsyncTraces: true,
  });
}
