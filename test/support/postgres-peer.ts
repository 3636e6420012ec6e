import { randomBytes } from 'node:crypto';
import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * A PostgreSQL server as far as authentication goes, speaking the real wire protocol (v3): it
 * answers an SSLRequest with 'N', reads the startup message, then asks for a password the way a
 * stock Debian cluster does on TCP (`scram-sha-256`: SASL, its server-first-message, then the
 * client's proof), or as `password` (cleartext), and refuses whatever password or proof it gets
 * with the error PostgreSQL sends (FATAL 28P01). The test PostgreSQL trusts
 * local connections, so it cannot be made to ask for a password itself.
 */
export class PostgresAuthPeer {
  readonly passwordsSeen: string[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  private constructor(method: 'scram-sha-256' | 'password') {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      this.serve(socket, method);
    });
  }

  static async start(method: 'scram-sha-256' | 'password'): Promise<PostgresAuthPeer> {
    const peer = new PostgresAuthPeer(method);
    await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
    peer.port = (peer.server.address() as AddressInfo).port;
    return peer;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: Socket, method: 'scram-sha-256' | 'password'): void {
    let buffer = Buffer.alloc(0);
    let started = false;
    let user = '';
    let scramStarted = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          // untyped messages: Int32 length (itself included), then Int32 code or protocol version
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          const body = buffer.subarray(8, length);
          buffer = buffer.subarray(length);
          if (code === 80877103) {
            socket.write('N'); // SSLRequest: no TLS here
            continue;
          }
          started = true;
          const fields = body.toString('utf8').split('\0');
          user = fields[fields.indexOf('user') + 1] ?? '';
          socket.write(method === 'password' ? authRequest(3) : authRequest(10, Buffer.from('SCRAM-SHA-256\0\0')));
          continue;
        }
        // typed messages: Byte1 type, Int32 length (itself included, not the type)
        if (buffer.length < 5) return;
        const length = buffer.readInt32BE(1);
        if (buffer.length < length + 1) return;
        const type = String.fromCharCode(buffer[0]);
        const body = buffer.subarray(5, length + 1);
        buffer = buffer.subarray(length + 1);
        if (type !== 'p') continue;
        if (method === 'scram-sha-256' && !scramStarted) {
          // SASLInitialResponse: mechanism\0, Int32 length, client-first-message "n,,n=*,r=<nonce>"
          scramStarted = true;
          const nonce = /r=([^,]+)/.exec(body.subarray(body.indexOf(0) + 5).toString('utf8'))?.[1] ?? '';
          socket.write(authRequest(11, Buffer.from(`r=${nonce}${randomBytes(18).toString('base64')},s=${randomBytes(16).toString('base64')},i=4096`)));
          continue;
        }
        // a cleartext password, or SCRAM's client-final-message with its proof: refused either way
        this.passwordsSeen.push(body.toString('utf8').replace(/\0$/, ''));
        socket.end(errorResponse('28P01', `password authentication failed for user "${user}"`));
        return;
      }
    });
  }
}

function authRequest(kind: number, extra = Buffer.alloc(0)): Buffer {
  const message = Buffer.alloc(9 + extra.length);
  message.write('R', 0);
  message.writeInt32BE(8 + extra.length, 1);
  message.writeInt32BE(kind, 5);
  extra.copy(message, 9);
  return message;
}

function errorResponse(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([header, fields]);
}
