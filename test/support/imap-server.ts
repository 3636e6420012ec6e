import { AddressInfo, Socket } from 'node:net';
import { ImapFlow } from 'imapflow';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hoodiecrow = require('hoodiecrow-imap');

export interface ImapServerOptions {
  user: string;
  pass: string;
  /** Implicit TLS (imaps) with this certificate. */
  tls?: { cert: string; key: string };
}

/**
 * A real local IMAP server (npm hoodiecrow-imap: IMAP4rev1 over TCP, in memory) with one user
 * and an INBOX. Messages arrive by APPEND through a real IMAP client (imapflow), as a delivery
 * agent would put them there. It records which UIDs clients downloaded (UID FETCH of a body).
 */
export class ImapTestServer {
  port = 0;
  /** Every UID whose body a client fetched, once per fetch. */
  readonly bodyFetches: number[] = [];
  /** Logins tried, by user name. */
  readonly logins: string[] = [];
  private server: any;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly options: ImapServerOptions) {}

  static async start(options: ImapServerOptions): Promise<ImapTestServer> {
    const s = new ImapTestServer(options);
    s.server = hoodiecrow({
      plugins: ['ID', 'ENABLE', 'UNSELECT', 'NAMESPACE', 'UIDPLUS', 'IDLE'],
      users: { [options.user]: { password: options.pass } },
      storage: { INBOX: { messages: [] }, '': { separator: '/', folders: {} } },
      ...(options.tls ? { secureConnection: true, credentials: { cert: options.tls.cert, key: options.tls.key } } : {}),
    });
    for (const command of ['UID FETCH', 'LOGIN']) {
      const original = s.server.getCommandHandler(command);
      s.server.setCommandHandler(command, (connection: unknown, parsed: any, data: string, callback: () => void) => {
        const line = String(data);
        if (command === 'LOGIN') s.logins.push(String(parsed.attributes?.[0]?.value ?? ''));
        const body = /UID FETCH (\S+) .*BODY/i.exec(line);
        if (body) for (const uid of expand(body[1])) s.bodyFetches.push(uid);
        return original(connection, parsed, data, callback);
      });
    }
    s.server.server.on('connection', (socket: Socket) => {
      s.sockets.add(socket);
      socket.on('close', () => s.sockets.delete(socket));
    });
    s.server.server.on('secureConnection', (socket: Socket) => {
      s.sockets.add(socket);
      socket.on('close', () => s.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.port = (s.server.server.address() as AddressInfo).port;
    return s;
  }

  /** `imap[s]://user:pass@127.0.0.1:port`, credentials percent-encoded. */
  url(pass = this.options.pass): string {
    return `${this.options.tls ? 'imaps' : 'imap'}://${encodeURIComponent(this.options.user)}:${encodeURIComponent(pass)}@127.0.0.1:${this.port}`;
  }

  /** Appends raw RFC 822 messages to INBOX; resolves with their UIDs. */
  async append(...raws: string[]): Promise<number[]> {
    const client = new ImapFlow({
      host: '127.0.0.1', port: this.port, secure: !!this.options.tls, auth: { user: this.options.user, pass: this.options.pass }, logger: false,
      tls: this.options.tls ? { ca: this.options.tls.cert } : undefined,
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const uids: number[] = [];
      for (const raw of raws) {
        const result = await client.append('INBOX', raw);
        if (!result) throw new Error('APPEND failed');
        uids.push(Number(result.uid ?? 0));
      }
      return uids;
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  /** Body downloads per UID. */
  fetchCounts(): Map<number, number> {
    const counts = new Map<number, number>();
    for (const uid of this.bodyFetches) counts.set(uid, (counts.get(uid) ?? 0) + 1);
    return counts;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.server.close(() => resolve()));
  }
}

/** `1,3:5` -> [1, 3, 4, 5] (bounded ranges only). */
function expand(set: string): number[] {
  const out: number[] = [];
  for (const part of set.split(',')) {
    const [a, b] = part.split(':').map(Number);
    if (b === undefined) out.push(a);
    else if (Number.isFinite(a) && Number.isFinite(b)) for (let i = Math.min(a, b); i <= Math.max(a, b); i++) out.push(i);
  }
  return out;
}
