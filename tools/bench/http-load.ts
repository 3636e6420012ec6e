import { connect, Socket } from 'node:net';

/**
 * One kept-alive HTTP/1.1 connection that sends GETs one at a time and reads each response to its
 * end (Content-Length or chunked), for the benchmarks' load generators. The load generator shares
 * the machine's two cores with the mesh it measures: node:http's client spent about 0.4 ms of CPU
 * per request there, more than billing did, so this one writes a request built once per URL and
 * reads no more of a response than its status line, its length and its bytes.
 */
export class LoadConnection {
  private socket?: Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting?: { resolve: (status: number) => void; reject: (err: Error) => void };

  constructor(private readonly host: string, private readonly port: number) {}

  /** The response's status code, once its whole body has arrived. */
  get(request: Buffer): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.open().write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.parse();
    });
    const fail = (err: Error) => {
      this.socket = undefined;
      this.buffered = Buffer.alloc(0);
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    this.socket = socket;
    return socket;
  }

  /** Completes the waiting GET when the buffer holds a whole response. */
  private parse(): void {
    const headerEnd = this.buffered.indexOf('\r\n\r\n');
    if (headerEnd < 0 || !this.waiting) return;
    const head = this.buffered.toString('latin1', 0, headerEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    let end: number;
    if (length) {
      end = headerEnd + 4 + Number(length[1]);
      if (this.buffered.length < end) return;
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const last = this.chunkedEnd(headerEnd + 4);
      if (last < 0) return;
      end = last;
    } else {
      end = headerEnd + 4;
    }
    this.buffered = this.buffered.subarray(end);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting.resolve(status);
  }

  /** Where a chunked body that starts at `at` ends, or -1 while it has not all arrived. */
  private chunkedEnd(at: number): number {
    for (;;) {
      const line = this.buffered.indexOf('\r\n', at);
      if (line < 0) return -1;
      const size = parseInt(this.buffered.toString('latin1', at, line), 16);
      if (size === 0) {
        const trailerEnd = this.buffered.indexOf('\r\n\r\n', line);
        return trailerEnd < 0 ? -1 : trailerEnd + 4;
      }
      at = line + 2 + size + 2;
      if (at > this.buffered.length) return -1;
    }
  }
}

/** The bytes of a GET of `url` with `headers` on a kept-alive connection. */
export function getRequest(url: URL, headers: Record<string, string>): Buffer {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}
