import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** A self-signed certificate for localhost and 127.0.0.1, with its PEM written to a file for NODE_EXTRA_CA_CERTS. */
export interface TestCertificate {
  cert: string;
  key: string;
  caFile: string;
  dispose(): void;
}

export async function testCertificate(): Promise<TestCertificate> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  } as never);
  const dir = mkdtempSync(join(tmpdir(), 'webhook-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  return { cert: pems.cert, key: pems.private, caFile, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  receivedAt: number;
}

/** What a path answers: a status (and optional delay and body); default 200. */
export type Responder = (req: ReceivedRequest) => { status: number; delayMs?: number; body?: string; headers?: Record<string, string> };

/** A local HTTPS receiver that records every request; each path may answer differently. */
export class HttpsReceiver {
  readonly received: ReceivedRequest[] = [];
  private readonly responders = new Map<string, Responder>();
  private readonly listeners = new Set<(r: ReceivedRequest) => void>();

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(cert: TestCertificate): Promise<HttpsReceiver> {
    let receiver!: HttpsReceiver;
    const server = createServer({ cert: cert.cert, key: cert.key, keepAliveTimeout: 30_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const record: ReceivedRequest = { path: req.url ?? '/', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        receiver.received.push(record);
        for (const listener of receiver.listeners) listener(record);
        const answer = receiver.responders.get(record.path)?.(record) ?? { status: 200 };
        const reply = () => {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
          res.end(answer.body ?? 'ok');
        };
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new HttpsReceiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  respond(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  on(listener: (r: ReceivedRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  at(path: string): ReceivedRequest[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
