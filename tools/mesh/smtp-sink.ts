import { AddressInfo } from 'node:net';
import { simpleParser, ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { keepInOutbox } from '@app/platform/mail-outbox';

export interface SunkMail {
  messageId: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  headers: ParsedMail['headers'];
  auth: string | null;
  /** A header as sent (mailparser structures some, such as List-Unsubscribe). */
  raw(name: string): string | undefined;
}

/**
 * A real local SMTP server (npm smtp-server) that keeps every message it accepts; with `outboxDir`,
 * also as a file there (`npm start`'s mail outbox, libs/platform/src/mail-outbox.ts).
 */
export class SmtpSink {
  readonly mails: SunkMail[] = [];
  private server!: SMTPServer;
  port = 0;
  /** Recipients the server refuses at RCPT with a 550 (a mailbox that does not exist). */
  readonly refuse = new Set<string>();

  static async start(options: { outboxDir?: string } = {}): Promise<SmtpSink> {
    const sink = new SmtpSink();
    sink.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      size: 1024 * 1024,
      onAuth: (auth, _session, cb) => cb(null, { user: `${auth.username}:${auth.password}` }),
      onRcptTo: (address, _session, cb) => (sink.refuse.has(address.address.toLowerCase()) ? cb(Object.assign(new Error('5.1.1 no such user'), { responseCode: 550 })) : cb()),
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', async () => {
          try {
            const raw = Buffer.concat(chunks);
            const parsed = await simpleParser(raw);
            const to = session.envelope.rcptTo.map((r) => r.address);
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
            if (options.outboxDir) keepInOutbox(options.outboxDir, { from, to, subject: parsed.subject ?? '', text: parsed.text ?? '' }, raw);
            sink.mails.push({
              messageId: parsed.messageId ?? '',
              to: to.join(','),
              from,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              headers: parsed.headers,
              auth: (session.user as string | undefined) ?? null,
              raw: (name: string) => {
                const line = parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line;
                return line === undefined ? undefined : line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
              },
            });
            cb();
          } catch (err) {
            cb(err as Error);
          }
        });
      },
    });
    // a client killed mid-session (a SIGKILLed replica) resets its socket: not the sink's failure
    sink.server.on('error', () => undefined);
    await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
    sink.port = (sink.server.server.address() as AddressInfo).port;
    return sink;
  }

  to(address: string): SunkMail[] {
    return this.mails.filter((m) => m.to.toLowerCase() === address.toLowerCase());
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
