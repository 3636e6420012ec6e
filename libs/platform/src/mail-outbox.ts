import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';

/**
 * `npm start`'s mail outbox: every message its local SMTP server accepts is kept as one `.eml`
 * file (the message as sent, after a `Return-Path` and one `Delivered-To` per envelope recipient,
 * as a mail server delivering to a mailbox adds them), so what the mesh "sent" can be read
 * (`admin mail:outbox`) without any mail leaving the machine.
 */

/** Where `npm start` keeps the outbox of this checkout (relative to the repository root). */
export const LOCAL_MAIL_OUTBOX_DIR = '.data/mail/outbox';

/** MAIL_OUTBOX_DIR, else this checkout's `.data/mail/outbox` under `cwd`. */
export function mailOutboxDir(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return env.MAIL_OUTBOX_DIR || join(cwd, LOCAL_MAIL_OUTBOX_DIR);
}

/** The name sorts by arrival (a fixed-width millisecond clock first); the file appears whole (written aside, then renamed). */
export function keepInOutbox(dir: string, envelope: { from: string; to: string[] }, message: Buffer, now = Date.now()): string {
  mkdirSync(dir, { recursive: true });
  const name = `${String(now).padStart(15, '0')}-${randomBytes(4).toString('hex')}.eml`;
  const header = [`Return-Path: <${envelope.from}>`, ...envelope.to.map((to) => `Delivered-To: ${to}`)].join('\r\n');
  const aside = join(dir, `.${name}.part`);
  writeFileSync(aside, Buffer.concat([Buffer.from(`${header}\r\n`), message]));
  renameSync(aside, join(dir, name));
  return name;
}

export interface OutboxMail {
  id: string;
  received_at: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** Every http(s) link of the text, in order (a confirmation link, an unsubscribe link). */
  links: string[];
}

/** The newest `limit` mails (newest first), those delivered to `to` only when it is given. */
export async function readOutbox(dir: string, options: { to?: string; limit: number }): Promise<OutboxMail[]> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.eml'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const wanted = options.to?.trim().toLowerCase();
  const mails: OutboxMail[] = [];
  for (const name of names.sort().reverse()) {
    if (mails.length >= options.limit) break;
    const parsed = await simpleParser(readFileSync(join(dir, name)));
    const line = (key: string) => parsed.headerLines.filter((h) => h.key === key).map((h) => h.line.slice(h.line.indexOf(':') + 1).trim());
    const to = line('delivered-to');
    if (wanted && !to.some((address) => address.toLowerCase() === wanted)) continue;
    const text = parsed.text ?? '';
    mails.push({
      id: name.slice(0, -'.eml'.length),
      received_at: new Date(Number(name.slice(0, 15))).toISOString(),
      from: line('return-path')[0]?.replace(/^<|>$/g, '') ?? '',
      to,
      subject: parsed.subject ?? '',
      text,
      links: text.match(/https?:\/\/[^\s<>"]+/g) ?? [],
    });
  }
  return mails;
}
