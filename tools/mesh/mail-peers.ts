import { SMTPServer } from 'smtp-server';
import { createServer, Socket } from 'node:net';
import { freePort } from './processes';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns2 = require('dns2');

export interface Zone {
  /** domain -> MX host names */
  mx?: Record<string, string[]>;
  /** name -> IPv4 */
  a?: Record<string, string>;
  /**
   * Suffixes (e.g. `.example`) the server answers for; a name outside them is REFUSED, so a
   * resolver pointed here can never take a real domain's absence from it. Unset: every name.
   */
  authority?: string[];
  /** names answered SERVFAIL: a resolver that cannot answer (read at each question, so a test may change it) */
  servfail?: string[];
}

/**
 * A local DNS server (npm dns2, UDP) answering MX and A from a fixed zone; SERVFAIL for
 * `servfail` names; any other name in its authority NXDOMAIN, names outside it REFUSED.
 */
export async function startDns(zone: Zone): Promise<{ server: string; close: () => Promise<void> }> {
  const { Packet } = dns2;
  const port = await freePort();
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = String(question.name).toLowerCase().replace(/\.$/, '');
      const mx = zone.mx && Object.hasOwn(zone.mx, name) ? zone.mx[name] : undefined;
      const a = zone.a && Object.hasOwn(zone.a, name) ? zone.a[name] : undefined;
      if (zone.authority && !zone.authority.some((suffix) => name.endsWith(suffix))) {
        response.header.rcode = Packet.RCODE.REFUSED;
      } else if (zone.servfail?.includes(name)) {
        response.header.rcode = Packet.RCODE.SERVFAIL;
      } else if (question.type === Packet.TYPE.MX && mx) {
        mx.forEach((exchange, i) => response.answers.push({ name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 60, exchange, priority: 10 * (i + 1) }));
      } else if (question.type === Packet.TYPE.A && a) {
        response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address: a });
      } else if (!mx && !a) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      }
      send(response);
    },
  });
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  return { server: `127.0.0.1:${port}`, close: () => server.close() };
}

/**
 * A local SMTP server (npm smtp-server): accepts RCPT for `accept` addresses and every address at
 * `catchAll` domains, 550 otherwise. The tests' peer and `npm start`'s demo mail sandbox.
 */
export async function startSmtp(options: { accept: string[]; catchAll: string[] }): Promise<{ port: number; rcpts: string[]; connections: () => number; close: () => Promise<void> }> {
  const rcpts: string[] = [];
  let connections = 0;
  const accept = new Set(options.accept.map((a) => a.toLowerCase()));
  const catchAll = new Set(options.catchAll.map((d) => d.toLowerCase()));
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      rcpts.push(to);
      if (accept.has(to) || catchAll.has(to.split('@')[1])) return callback();
      const err = new Error('5.1.1 mailbox unavailable') as Error & { responseCode: number };
      err.responseCode = 550;
      return callback(err);
    },
  });
  // a verifier whose process is stopped mid-conversation resets its socket: not this server's failure
  // (without a listener the 'error' event fails the test file after its tests passed)
  server.on('error', () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { port, rcpts, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Mail servers that accept TCP on `port` at each address and never say a word (a tarpit): the
 * worst an MX host can do to a verifier short of not answering SYN. Loopback addresses beyond
 * 127.0.0.1 (127.0.0.2…) give several "hosts" on one port, as the verifier probes one port.
 */
export async function startTarpit(addresses: string[], port: number): Promise<{ connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const servers = addresses.map(() =>
    createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }),
  );
  await Promise.all(servers.map((server, i) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, addresses[i], () => resolve()))));
  return {
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
