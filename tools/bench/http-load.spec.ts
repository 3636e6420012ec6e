import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { getRequest, LoadConnection } from './http-load';

describe('LoadConnection', () => {
  let server: Server;
  let port: number;
  const seen: { url?: string; auth?: string; socket: unknown }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization, socket: req.socket });
      if (req.url?.startsWith('/chunked')) {
        // no Content-Length: node sends the body chunked, in two chunks here
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
        setTimeout(() => res.end('"b"}'), 20);
        return;
      }
      const body = Buffer.from(JSON.stringify({ url: req.url, pad: 'x'.repeat(200_000) }));
      res.writeHead(req.url?.startsWith('/missing') ? 404 : 200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('reads whole responses, by length and chunked, one after another on one kept-alive connection', async () => {
    const connection = new LoadConnection('127.0.0.1', port);
    const url = (path: string) => new URL(`http://127.0.0.1:${port}${path}`);
    const headers = { authorization: 'Bearer k' };
    const statuses: number[] = [];
    for (const path of ['/big?filters[stage]=seed', '/chunked', '/missing', '/big?page=2']) statuses.push(await connection.get(getRequest(url(path), headers)));
    connection.close();
    expect(statuses).toEqual([200, 200, 404, 200]);
    expect(seen.map((s) => s.url)).toEqual(['/big?filters[stage]=seed', '/chunked', '/missing', '/big?page=2']);
    expect(seen.every((s) => s.auth === 'Bearer k')).toBe(true);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
  });

  it('fails the waiting request when the server closes the connection', async () => {
    const closing = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const connection = new LoadConnection('127.0.0.1', (closing.address() as AddressInfo).port);
    await expect(connection.get(getRequest(new URL('http://127.0.0.1/'), {}))).rejects.toThrow('connection closed');
    connection.close();
    await new Promise((resolve) => closing.close(resolve));
  });
});
