import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm start`'s mail outbox: every message its local SMTP server accepts is kept as one `.eml`
 * file (the message as sent, after a `Return-Path` and one `Delivered-To` per envelope recipient,
 * as a mail server delivering to a mailbox adds them) and a `.json` file beside it with what a
 * reader wants (sender, recipients, subject, text, links), so what the mesh "sent" can be read
 * (`admin mail:outbox`) without any mail leaving the machine, and without a MIME parser in the
 * admin CLI (the server, which has one, writes the summary).
 */

/** Where `npm start` keeps the outbox of this checkout (relative to the repository root). */
export const LOCAL_MAIL_OUTBOX_DIR = '.data/mail/outbox';

/** MAIL_OUTBOX_DIR, else this checkout's `.data/mail/outbox` under `cwd`. */
export function mailOutboxDir(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return env.MAIL_OUTBOX_DIR || join(cwd, LOCAL_MAIL_OUTBOX_DIR);
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

/** Written aside, then renamed: a reader never sees half a file. */
function writeWhole(path: string, data: string | Buffer): void {
  const aside = `${path}.part`;
  writeFileSync(aside, data);
  renameSync(aside, path);
}

/**
 * Keeps one accepted message: the `.eml` first, then its summary, which is what readers list (so
 * a listed mail always has its message). Names sort by arrival (a fixed-width millisecond clock first).
 */
export function keepInOutbox(
  dir: string,
  mail: { from: string; to: string[]; subject: string; text: string },
  message: Buffer,
  now = Date.now(),
): OutboxMail {
  mkdirSync(dir, { recursive: true });
  const id = `${String(now).padStart(15, '0')}-${randomBytes(4).toString('hex')}`;
  const header = [`Return-Path: <${mail.from}>`, ...mail.to.map((to) => `Delivered-To: ${to}`)].join('\r\n');
  writeWhole(join(dir, `${id}.eml`), Buffer.concat([Buffer.from(`${header}\r\n`), message]));
  const kept: OutboxMail = { id, received_at: new Date(now).toISOString(), ...mail, links: mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? [] };
  writeWhole(join(dir, `${id}.json`), `${JSON.stringify(kept)}\n`);
  return kept;
}

/** The newest `limit` mails (newest first), those delivered to `to` only when it is given. */
export function readOutbox(dir: string, options: { to?: string; limit: number }): OutboxMail[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const wanted = options.to?.trim().toLowerCase();
  const mails: OutboxMail[] = [];
  for (const name of names.sort().reverse()) {
    if (mails.length >= options.limit) break;
    const mail = JSON.parse(readFileSync(join(dir, name), 'utf8')) as OutboxMail;
    if (wanted && !mail.to.some((address) => address.toLowerCase() === wanted)) continue;
    mails.push(mail);
  }
  return mails;
}
