import { ClientRequest, IncomingMessage, request } from 'node:http';
import { ApiResponse } from '../harness';

/** One Server-Sent Event as a client parses it (the WHATWG rules: `id`, `data` lines, a blank line dispatches). */
export interface SseEvent {
  id: string;
  data: string;
}

/**
 * A `text/event-stream` response read as it arrives: its events, its comment lines and whether it
 * ended. A refusal (any status but 200) is read whole, as an ApiResponse. Over node:http, whose
 * `destroy()` closes the connection and nothing more (the fetch of Node 20 opens a fresh idle
 * connection after an aborted one, which would hold the gateway's drain until its headers timeout).
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** Every byte received, as text. */
  raw = '';
  ended = false;
  readonly done: Promise<void>;
  readonly response: { status: number; headers: Headers };

  private constructor(private readonly req: ClientRequest, private readonly res: IncomingMessage) {
    this.response = { status: res.statusCode ?? 0, headers: headersOf(res) };
    this.done = this.read();
  }

  /** Opens the stream; a refusal comes back as `refused`. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<{ stream?: SseClient; refused?: ApiResponse }> {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } });
    const res = await new Promise<IncomingMessage>((resolve, reject) => req.on('response', resolve).on('error', reject).end());
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { refused: { status: res.statusCode ?? 0, headers: headersOf(res), text, body: body as any } };
    }
    return { stream: new SseClient(req, res) };
  }

  /** The events' parsed `data`. */
  json(): any[] {
    return this.events.map((e) => JSON.parse(e.data));
  }

  close(): void {
    this.req.destroy();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let id = '';
    let data: string[] = [];
    try {
      for await (const chunk of this.res as AsyncIterable<Buffer>) {
        const text = decoder.decode(chunk, { stream: true });
        this.raw += text;
        buffer += text;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (data.length > 0) this.events.push({ id, data: data.join('\n') });
            data = [];
            continue;
          }
          if (line.startsWith(':')) {
            this.comments.push(line.slice(1).trim());
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = value;
          else if (field === 'data') data.push(value);
        }
      }
    } catch {
      // aborted by close(), or the connection broke
    }
    this.ended = true;
  }
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of [value ?? []].flat()) headers.append(name, v);
  }
  return headers;
}
