import { Agent, request } from 'node:https';
import { BlockedAddressError, guardedLookup, literalAllowed, NOT_PUBLIC_ADDRESS } from './address-guard';

/** Bytes of a response body read at most; the rest is discarded unread. */
export const MAX_RESPONSE_BYTES = 4096;

export interface SendResult {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One HTTPS POST. Success is a 2xx within the time allowed; redirects are not followed (a 3xx
 * is a failure); at most MAX_RESPONSE_BYTES of the answer are read. Never throws.
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly allowed: Set<string>;

  constructor(allowedHosts: Set<string>, maxSockets: number, dnsServers: string[] = []) {
    this.allowed = allowedHosts;
    // NODE_EXTRA_CA_CERTS joins Node's default store, which this agent uses.
    this.agent = new Agent({ keepAlive: true, maxSockets, lookup: guardedLookup(allowedHosts, dnsServers) as never });
  }

  send(options: SendOptions): Promise<SendResult> {
    const started = performance.now();
    const done = (ok: boolean, status: number | null, error: string | null): SendResult => ({
      ok, status_code: status, error, latency_ms: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      return Promise.resolve(done(false, null, 'invalid URL'));
    }
    if (url.protocol !== 'https:') return Promise.resolve(done(false, null, 'only HTTPS URLs are delivered to'));
    if (!literalAllowed(url.hostname, this.allowed)) return Promise.resolve(done(false, null, NOT_PUBLIC_ADDRESS));
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const req = request(url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) },
      });
      const timer = setTimeout(() => {
        finish(done(false, null, `no 2xx within ${options.timeoutMs} ms`));
        req.destroy();
      }, options.timeoutMs);
      const onAbort = () => {
        finish(done(false, null, 'aborted: endpoint deleted'));
        req.destroy();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            // enough: the answer's status is known; do not let a receiver stream at us
            finish(done(ok, status, ok ? null : `HTTP ${status}`));
            res.destroy();
          }
        });
        res.on('end', () => finish(done(ok, status, ok ? null : `HTTP ${status}`)));
        res.on('error', () => finish(done(ok, status, ok ? null : `HTTP ${status}`)));
        res.on('close', () => finish(done(ok, status, ok ? null : `HTTP ${status}`)));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof BlockedAddressError) return finish(done(false, null, NOT_PUBLIC_ADDRESS));
        finish(done(false, null, err.code ? `${err.code}: ${err.message}` : err.message));
      });
      req.end(options.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
