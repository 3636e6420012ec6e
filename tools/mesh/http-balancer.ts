import { Agent, createServer, IncomingMessage, request as httpRequest, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** The response header the balancer adds: milliseconds from forwarding a request to its gateway's answer. */
export const UPSTREAM_MS_HEADER = 'x-balancer-upstream-ms';

/** How long a gateway that refused or dropped a connection is passed over (then tried again). */
const PASS_OVER_MS = 500;

/**
 * The load balancer in front of the gateways, as a Kubernetes Service and its ingress are in
 * production, on one machine (`npm run cluster`, `npm run chaos -- --cluster`): requests go round
 * the gateways; a gateway that refuses the connection or drops it before its answer (killed,
 * restarting) is passed over for PASS_OVER_MS, and the request goes to the next gateway when it
 * may be sent twice: a GET or HEAD, or a POST carrying an Idempotency-Key (the gateways share its
 * record, so the second gateway replays or finishes what the first began). Any other request that
 * lost its gateway is answered 502 with the API's error object: whether the gateway acted is
 * unknown, and sending it again could do it twice. An answer that has begun is passed on as it
 * comes; one cut off midway is cut off for the client too.
 */
export class HttpBalancer {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  private readonly passedOver = new Map<number, number>();
  private turn = 0;

  private constructor(
    private readonly server: Server,
    private readonly gateways: number[],
  ) {}

  /** Listens on 127.0.0.1:`port` (0: any free port) in front of the gateways on `gatewayPorts`. */
  static async start(gatewayPorts: number[], port = 0): Promise<HttpBalancer> {
    const server = createServer();
    const balancer = new HttpBalancer(server, gatewayPorts);
    // a client that goes away mid-request ends its request here, nothing else
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void balancer.handle(req, res).catch(() => res.destroy()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return balancer;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  async close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const twiceIsSafe = method === 'GET' || method === 'HEAD' || (method === 'POST' && req.headers['idempotency-key'] !== undefined);
    const tried = new Set<number>();
    for (;;) {
      const gateway = this.next(tried);
      tried.add(gateway);
      const outcome = await this.forward(gateway, req, body, res);
      if (outcome === 'answered') return;
      this.passedOver.set(gateway, Date.now() + PASS_OVER_MS);
      if (!twiceIsSafe || tried.size >= this.gateways.length) {
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'internal_error', message: 'The gateway answering this request went away; retry (with the same Idempotency-Key on POST)' } }));
        }
        return;
      }
    }
  }

  /** The next gateway in turn not tried yet for this request, preferring those not passed over. */
  private next(tried: Set<number>): number {
    const now = Date.now();
    const untried = this.gateways.filter((g) => !tried.has(g));
    const up = untried.filter((g) => (this.passedOver.get(g) ?? 0) <= now);
    const pool = up.length > 0 ? up : untried;
    return pool[this.turn++ % pool.length];
  }

  /** `lost`: no answer began (refused, reset, closed): the request may go elsewhere. */
  private forward(gateway: number, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<'answered' | 'lost'> {
    return new Promise((resolve) => {
      const headers = { ...req.headers, 'content-length': String(body.length) };
      delete headers.connection;
      const sent = performance.now();
      const upstream = httpRequest({ host: '127.0.0.1', port: gateway, method: req.method, path: req.url, headers, agent: this.agent }, (answer) => {
        const { connection: _c, 'keep-alive': _k, ...passed } = answer.headers;
        // how long the gateway took to begin its answer, as this process saw it: beside what the
        // client measures, it tells the gateway's time from the client's and this process's own
        passed[UPSTREAM_MS_HEADER] = String(Math.round(performance.now() - sent));
        res.writeHead(answer.statusCode ?? 502, passed);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
        answer.on('aborted', () => res.destroy());
        resolve('answered');
      });
      upstream.on('error', () => resolve('lost'));
      upstream.end(body);
    });
  }
}
