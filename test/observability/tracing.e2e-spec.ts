import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { TestMesh } from '../harness';
import { allowance } from '../support/timing';

interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

/** A local OTLP/HTTP (JSON) trace receiver: what the exporters send, collected for the test. */
function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const payload = JSON.parse(body);
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const service = resourceSpans.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({ service, name: span.name, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, spans, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces` })),
  );
}

describe('tracing across the NATS hop', () => {
  let mesh: TestMesh;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    mesh = await TestMesh.start(['gateway', 'crm'], {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });
  afterAll(async () => {
    await mesh?.close();
    receiver?.server.close();
  });

  it('continues the caller\'s trace through the gateway, the NATS request and the crm handler', async () => {
    const { key } = await mesh.workspace();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await mesh.request('GET', '/leads', { key, headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(res.status).toBe(200);

    const deadline = Date.now() + allowance(10_000);
    const find = (service: string, name: string) => receiver.spans.find((s) => s.service === service && s.name === name && s.traceId === traceId);
    while (Date.now() < deadline && !(find('gateway', 'HTTP GET') && find('gateway', 'nats crm.leads.list') && find('crm', 'handle crm.leads.list'))) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const server = find('gateway', 'HTTP GET');
    const client = find('gateway', 'nats crm.leads.list');
    const handler = find('crm', 'handle crm.leads.list');
    expect(server?.parentSpanId).toBe('00f067aa0ba902b7');
    expect(client?.parentSpanId).toBe(server?.spanId);
    expect(handler?.parentSpanId).toBe(client?.spanId);
  });
});
