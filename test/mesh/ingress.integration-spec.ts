import { createServer, Server } from 'node:http';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { GATEWAY_PROXY, GatewayProxy, ingressAnnotations, nginxAnnotationsOf, testNginxConfig, UPSTREAM_TIME_HEADER, writeNginxConfig } from '../../tools/mesh/ingress';
import { freePort, ROOT } from '../../tools/mesh/processes';

/**
 * The proxy in front of the gateways, from one source (tools/mesh/ingress.ts): the prod Ingress
 * carries exactly the nginx annotations it generates, the nginx.conf it generates for the local
 * runs passes `nginx -t`, and Debian's nginx running it passes a request on to the other gateway
 * as ingress-nginx does: a GET after its gateway dropped it, any request whose gateway refused the
 * connection; never a POST that reached a gateway (502, sent once: the client sends it again).
 */
describe('the gateways\' proxy (tools/mesh/ingress.ts)', () => {
  it('k8s/overlays/prod/ingress.yaml carries exactly the nginx annotations and the path the module generates', () => {
    const ingress = parse(readFileSync(join(ROOT, 'k8s/overlays/prod/ingress.yaml'), 'utf8'));
    expect(nginxAnnotationsOf(ingress.metadata.annotations)).toEqual(ingressAnnotations());
    expect(ingressAnnotations()['nginx.ingress.kubernetes.io/proxy-next-upstream']).toBe('error timeout');
    expect(ingress.spec.rules.map((r: { http: { paths: { path: string }[] } }) => r.http.paths.map((p) => p.path))).toEqual([[GATEWAY_PROXY.path]]);
  });

  it('the generated nginx.conf passes nginx -t -c', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ingress-'));
    try {
      const file = writeNginxConfig({ dir, port: 18080, gatewayPorts: [13000, 13001] });
      const tested = testNginxConfig(file, dir);
      expect(tested).toMatchObject({ status: 0, output: expect.stringContaining('test is successful') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('nginx running it in front of two local servers standing in for the gateways', () => {
    let dir: string;
    let dropping = true;
    let a: Awaited<ReturnType<typeof gateway>>;
    let b: Awaited<ReturnType<typeof gateway>>;
    let proxy: GatewayProxy;

    /** A local HTTP server: it answers with its name, or drops the connection unanswered. */
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

    beforeEach(async () => {
      dropping = true;
      dir = mkdtempSync(join(tmpdir(), 'ingress-'));
      // nginx's worker runs as nobody under root, and writes large request bodies in here
      chmodSync(dir, 0o755);
      a = await gateway('a', () => dropping);
      b = await gateway('b', () => false);
      proxy = await GatewayProxy.start(dir, [a.port, b.port], await freePort());
    });
    afterEach(async () => {
      await proxy.close();
      for (const g of [a, b]) {
        g.server.closeAllConnections();
        await new Promise((r) => g.server.close(r));
      }
      rmSync(dir, { recursive: true, force: true });
    });

    const send = (method: string, headers: Record<string, string> = {}, body?: string) =>
      fetch(`${proxy.url}/leads`, { method, headers, body }).then(async (res) => ({ status: res.status, text: await res.text(), upstream: res.headers.get(UPSTREAM_TIME_HEADER) }));

    it('a GET whose gateway dropped it is answered by the other, sent to each once', async () => {
      for (let i = 0; i < 4; i++) {
        a.seen.length = 0;
        b.seen.length = 0;
        const res = await send('GET');
        expect({ status: res.status, by: JSON.parse(res.text).answered_by }).toEqual({ status: 200, by: 'b' });
        expect(a.seen.length + b.seen.length).toBeLessThanOrEqual(2);
      }
    });

    it('a POST that reached a gateway which dropped it is answered 502 and not sent to the other', async () => {
      // the first POST that goes to a is the one that reaches it
      let lost: Awaited<ReturnType<typeof send>> | undefined;
      for (let i = 0; i < 4 && !lost; i++) {
        const res = await send('POST', { 'idempotency-key': `k${i}`, 'content-type': 'application/json' }, '{"x":1}');
        if (res.status !== 200) lost = res;
      }
      expect(lost?.status).toBe(502);
      expect(a.seen).toEqual(['POST /api/v1/leads {"x":1}']);
      expect(b.seen.filter((s) => s.startsWith('POST')).length).toBeLessThan(4);
    });

    it('a POST whose gateway refused the connection goes to the other (it was not sent); the header tells each gateway tried', async () => {
      a.server.closeAllConnections();
      await new Promise((r) => a.server.close(r));
      for (let i = 0; i < 4; i++) {
        const res = await send('POST', { 'idempotency-key': `k${i}`, 'content-type': 'application/json' }, '{"x":1}');
        expect({ status: res.status, by: JSON.parse(res.text).answered_by }).toEqual({ status: 200, by: 'b' });
        expect(res.upstream).toMatch(/^(\d+\.\d{3}|-)(, (\d+\.\d{3}|-))*$/);
      }
      expect(b.seen).toHaveLength(4);
    });

    it('keeps no memory of a gateway that refused: back, it answers at once while the other is down (a rolling restart)', async () => {
      dropping = false;
      const port = a.port;
      a.server.closeAllConnections();
      await new Promise((r) => a.server.close(r));
      for (let i = 0; i < 4; i++) expect((await send('GET')).status).toBe(200);
      // a starts again on its port; then b stops, as the second step of a rolling restart
      await new Promise<void>((resolve) => a.server.listen(port, '127.0.0.1', () => resolve()));
      b.server.closeAllConnections();
      await new Promise((r) => b.server.close(r));
      for (let i = 0; i < 4; i++) {
        const res = await send('GET');
        expect({ status: res.status, by: res.status === 200 ? JSON.parse(res.text).answered_by : res.text.slice(0, 60) }).toEqual({ status: 200, by: 'a' });
      }
    });

    it('passes on a request body up to the gateway\'s limit (1 MiB), and refuses a larger one with 413', async () => {
      dropping = false;
      const big = JSON.stringify({ note: 'x'.repeat(900 * 1024) });
      const res = await send('POST', { 'idempotency-key': 'big', 'content-type': 'application/json' }, big);
      expect({ status: res.status, length: JSON.parse(res.text).body.length }).toEqual({ status: 200, length: big.length });
      const over = await send('POST', { 'idempotency-key': 'bigger', 'content-type': 'application/json' }, JSON.stringify({ note: 'x'.repeat(1100 * 1024) }));
      expect(over.status).toBe(413);
    });

    it('goes round both gateways while both answer; only the API path is passed on', async () => {
      dropping = false;
      const names = new Set<string>();
      for (let i = 0; i < 6; i++) names.add(JSON.parse((await send('GET')).text).answered_by);
      expect(names).toEqual(new Set(['a', 'b']));
      const outside = await fetch(`http://127.0.0.1:${proxy.port}/health/ready`);
      expect(outside.status).toBe(404);
    });
  });
});
