import { SMTPServer } from 'smtp-server';
import { freePort } from '../../tools/mesh/processes';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns2 = require('dns2');

export interface Zone {
  /** domain -> MX host names */
  mx?: Record<string, string[]>;
  /** name -> IPv4 */
  a?: Record<string, string>;
  /** names answered SERVFAIL: a resolver that cannot answer (read at each question, so a test may change it) */
  servfail?: string[];
}

/** A local DNS server (npm dns2, UDP) answering MX and A from a zone; SERVFAIL for `servfail` names; anything else NXDOMAIN. */
export async function startDns(zone: Zone): Promise<{ server: string; close: () => Promise<void> }> {
  const { Packet } = dns2;
  const port = await freePort();
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = String(question.name).toLowerCase().replace(/\.$/, '');
      const mx = zone.mx?.[name];
      const a = zone.a?.[name];
      if (zone.servfail?.includes(name)) response.header.rcode = Packet.RCODE.SERVFAIL;
      else if (question.type === Packet.TYPE.MX && mx) {
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

/** A local SMTP server (npm smtp-server): accepts RCPT for `accept` addresses and every address at `catchAll` domains, 550 otherwise. */
export async function startSmtp(options: { accept: string[]; catchAll: string[] }): Promise<{ port: number; rcpts: string[]; close: () => Promise<void> }> {
  const rcpts: string[] = [];
  const accept = new Set(options.accept.map((a) => a.toLowerCase()));
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      rcpts.push(to);
      if (accept.has(to) || options.catchAll.includes(to.split('@')[1])) return callback();
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
  return { port, rcpts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const MAIL_ZONE: Zone = {
  mx: { 'good.test': ['mx.good.test'], 'catchall.test': ['mx.catchall.test'], 'mailinator.com': ['mx.good.test'] },
  a: { 'mx.good.test': '127.0.0.1', 'mx.catchall.test': '127.0.0.1', 'aonly.test': '127.0.0.1' },
};
