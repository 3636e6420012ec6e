import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { HttpBalancer } from '../../tools/mesh/http-balancer';

/** A local HTTP server standing in for a gateway: it answers with its name, or drops the connection unanswered. */
async function gateway(name: string, drops: () => boolean): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      if (drops()) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ answered_by: name, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

describe('HttpBalancer (the cluster\'s load balancer in front of the gateways)', () => {
  let dropping = true;
  let a: Awaited<ReturnType<typeof gateway>>;
  let b: Awaited<ReturnType<typeof gateway>>;
  let balancer: HttpBalancer;

  beforeEach(async () => {
    dropping = true;
    a = await gateway('a', () => dropping);
    b = await gateway('b', () => false);
    balancer = await HttpBalancer.start([a.port, b.port]);
  });
  afterEach(async () => {
    await balancer.close();
    a.server.closeAllConnections();
    b.server.closeAllConnections();
    await Promise.all([a, b].map((g) => new Promise((r) => g.server.close(r))));
  });

  const send = (method: string, headers: Record<string, string> = {}, body?: string) =>
    fetch(`http://127.0.0.1:${balancer.port}/api/v1/leads`, { method, headers, body }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  it('sends a GET and a keyed POST that lost their gateway to the other one, with the same body', async () => {
    for (let i = 0; i < 4; i++) expect(await send('GET')).toMatchObject({ status: 200, body: { answered_by: 'b' } });
    expect(await send('POST', { 'idempotency-key': 'k1', 'content-type': 'application/json' }, '{"x":1}')).toMatchObject({ status: 200, body: { answered_by: 'b', body: '{"x":1}' } });
  });

  it('answers 502 with the error object for a request that may not be sent twice, sending it once', async () => {
    // round robin starts at a, which drops it
    const lost = await send('PATCH', { 'content-type': 'application/json' }, '{"title":"t"}');
    expect(lost).toMatchObject({ status: 502, body: { error: { code: 'internal_error' } } });
    expect(a.seen).toEqual(['PATCH /api/v1/leads {"title":"t"}']);
    expect(b.seen).toEqual([]);
  });

  it('goes round both gateways while both answer', async () => {
    dropping = false;
    const names = [];
    for (let i = 0; i < 4; i++) names.push((await send('GET')).body.answered_by);
    expect(new Set(names)).toEqual(new Set(['a', 'b']));
  });

  it('passes a gateway over once it refused connections, and answers from the other', async () => {
    await new Promise((r) => a.server.close(r));
    a.server.closeAllConnections();
    for (let i = 0; i < 4; i++) expect(await send('GET')).toMatchObject({ status: 200, body: { answered_by: 'b' } });
  });
});
