import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ImapFlow } from 'imapflow';
import { counter, rootLogger, SecretBox } from '@app/platform';
import { SEQUENCES_CONFIG, SequencesConfig } from '../sequences.config';
import { ImapPollSession, ImapStateRepository } from './imap-state.repository';
import { InboundService } from './inbound.service';

const log = rootLogger('sequences');

/** A message whose handling failed this many polls in a row is skipped (logged), so it cannot block its mailbox. */
const STUCK_LIMIT = 5;
/** Longest wait between two polls of a failing mailbox. */
const MAX_BACKOFF_MS = 15 * 60_000;

const polls = counter('sequences_imap_polls_total', 'IMAP polls of mailboxes, by outcome (ok, failed)', ['outcome']);
const messages = counter('sequences_imap_messages_total', 'Messages fetched from mailboxes by IMAP, by what they were (reply, unsubscribe_reply, auto_reply, hard_bounce, soft_bounce, unmatched, too_large, skipped)', ['kind']);

/** Connection options of an `imap[s]://user:pass@host:port` URL (imaps: TLS from the start, 993; imap: 143, STARTTLS when offered). */
export function imapOptions(url: string): { host: string; port: number; secure: boolean; auth: { user: string; pass: string } } {
  const parsed = new URL(url);
  if (parsed.protocol !== 'imaps:' && parsed.protocol !== 'imap:') throw new Error(`IMAP URL scheme must be imap or imaps, not ${parsed.protocol}`);
  if (!parsed.username) throw new Error('IMAP URL has no user name');
  const secure = parsed.protocol === 'imaps:';
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(parsed.port) || (secure ? 993 : 143),
    secure,
    auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) },
  };
}

/**
 * IMAP polling of each mailbox that has an IMAP URL. Every `SEQUENCES_IMAP_POLL_MS` a mailbox is
 * due; a replica takes a due mailbox only with `pg_try_advisory_lock` on a connection it keeps
 * for the whole poll (a replica that dies drops its connection, and with it the lock), re-reads
 * the mailbox's state under the lock, fetches INBOX's messages above `last_uid` (same
 * UIDVALIDITY) and hands each raw source to the same `InboundService.intake` as the raw intake,
 * recording `last_uid` after each one. So two replicas never fetch the same message, and a
 * replica killed between handling a message and recording it leaves one message that is
 * handled again, which changes nothing (intake is idempotent).
 *
 * First poll, or a changed UIDVALIDITY (the server renumbered INBOX): the messages received
 * since the day before the mailbox was created (first poll) or last polled (renumbered) are
 * handled, not the whole history. One mailbox's failure (credentials, unreachable, TLS) is
 * logged and recorded in its state row, with a growing delay before its next poll; the others
 * are polled as usual.
 */
@Injectable()
export class ImapPoller implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly box: SecretBox;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly states: ImapStateRepository,
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
    private readonly inbound: InboundService,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  onApplicationBootstrap(): void {
    if (!this.config.imapPoll) return;
    const every = Math.min(this.config.imapPollMs, 1000);
    const loop = async () => {
      if (this.stopped) return;
      this.ticking = this.tick().catch((err) => log.warn({ err: (err as Error).message }, 'imap poller: tick failed'));
      await this.ticking;
      if (!this.stopped) this.timer = setTimeout(loop, every);
    };
    this.timer = setTimeout(loop, 100);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.all(this.inFlight.values());
  }

  /** Starts polls of due mailboxes while this process has room; does not wait for them. */
  async tick(): Promise<void> {
    const room = this.config.imapConcurrency - this.inFlight.size;
    if (room <= 0) return;
    await this.states.addMissing();
    for (const mailbox_id of await this.states.due([...this.inFlight.keys()], room)) {
      if (this.stopped) break;
      const run = this.pollMailbox(mailbox_id)
        .then(() => undefined, (err) => log.warn({ mailbox_id, err: (err as Error).message }, 'imap poller: poll failed'))
        .finally(() => this.inFlight.delete(mailbox_id));
      this.inFlight.set(mailbox_id, run);
    }
  }

  /**
   * Polls one mailbox if no other replica is polling it and it is still due. Returns false when
   * it did not poll (locked elsewhere, or polled meanwhile).
   */
  async pollMailbox(mailboxId: string): Promise<boolean> {
    return this.states.pollSession(mailboxId, (session) => this.poll(session));
  }

  private async poll(session: ImapPollSession): Promise<void> {
    const { state } = session;
    let client: ImapFlow | undefined;
    let more = false;
    try {
      const options = imapOptions(this.box.open(state.imap_url_enc));
      client = new ImapFlow({
        ...options,
        logger: false,
        disableAutoIdle: true,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 60_000,
        maxLiteralSize: this.config.imapMaxMessageBytes + 64 * 1024,
        clientInfo: { name: 'lead-intelligence-sequences' },
      });
      // socket errors also reject the pending command; without a listener they would crash the process
      client.on('error', (err: Error) => log.debug({ mailbox_id: state.mailbox_id, err: err.message }, 'imap poller: connection error'));
      await client.connect();
      const lock = await client.getMailboxLock('INBOX', { readOnly: true });
      try {
        more = await this.fetchNew(session, client);
      } finally {
        lock.release();
      }
      await session.recordPolled(more ? 0 : this.config.imapPollMs);
      polls.inc({ outcome: 'ok' });
    } catch (err) {
      const failures = state.consecutive_failures + 1;
      const delay = Math.min(Math.max(this.config.imapPollMs * 2 ** Math.min(failures - 1, 10), this.config.imapPollMs), Math.max(MAX_BACKOFF_MS, this.config.imapPollMs));
      const reason = describe(err);
      log.warn({ mailbox_id: state.mailbox_id, err: reason, failures, next_poll_in_ms: delay }, 'imap poller: mailbox poll failed');
      polls.inc({ outcome: 'failed' });
      await session.recordFailed(reason.slice(0, 500), failures, delay);
    } finally {
      if (client) {
        // LOGOUT to a server that stopped answering must not hold the mailbox's lock
        const bye = client.logout().catch(() => undefined);
        await Promise.race([bye, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
        client.close();
      }
    }
  }

  /** Handles INBOX's new messages in UID order, recording each; true when more are left for an immediate next poll. */
  private async fetchNew(session: ImapPollSession, client: ImapFlow): Promise<boolean> {
    const { state } = session;
    const mailbox = client.mailbox;
    if (!mailbox) throw new Error('INBOX is not open');
    const uidValidity = String(mailbox.uidValidity);
    const same = state.uid_validity === uidValidity;
    const lastUid = same ? Number(state.last_uid) : 0;
    if (!same && state.uid_validity !== null) {
      log.warn({ mailbox_id: state.mailbox_id, was: state.uid_validity, now: uidValidity }, 'imap poller: UIDVALIDITY changed, INBOX is scanned again from the last poll');
    }
    let uids: number[];
    if (same) {
      // `n:*` always includes the highest UID, even when it is below n: filtered below
      if (mailbox.exists === 0 || (mailbox.uidNext && mailbox.uidNext <= lastUid + 1)) uids = [];
      else {
        uids = [];
        for await (const m of client.fetch(`${lastUid + 1}:*`, { uid: true }, { uid: true })) uids.push(m.uid);
      }
    } else {
      const since = new Date((state.uid_validity === null ? state.created_at : (state.last_polled_at ?? state.created_at)).getTime() - 86_400_000);
      uids = mailbox.exists === 0 ? [] : ((await client.search({ since }, { uid: true })) || []);
    }
    uids = [...new Set(uids)].filter((u) => u > lastUid).sort((a, b) => a - b);
    const batch = uids.slice(0, this.config.imapBatch);
    // after a full scan, every UID below UIDNEXT (as of SELECT) has been seen: older mail is never fetched
    const scanned = Math.max(0, (mailbox.uidNext ?? 0) - 1);
    if (batch.length === 0) {
      if (!same) await session.recordProgress(uidValidity, Math.max(lastUid, scanned), { clearStuck: false });
      return false;
    }
    const sizes = new Map<number, number>();
    for await (const m of client.fetch(batch.join(','), { uid: true, size: true }, { uid: true })) sizes.set(m.uid, m.size ?? 0);
    let stuckUid = state.stuck_uid === null ? null : Number(state.stuck_uid);
    for (const uid of batch) {
      if (this.stopped) return true; // shutting down: the rest is due at once, for another replica
      const size = sizes.get(uid);
      if (size === undefined) {
        messages.inc({ kind: 'skipped' }); // expunged since the UID list was read
      } else if (size > this.config.imapMaxMessageBytes) {
        log.warn({ mailbox_id: state.mailbox_id, uid, size }, 'imap poller: message larger than SEQUENCES_IMAP_MAX_MESSAGE_BYTES skipped');
        messages.inc({ kind: 'too_large' });
      } else {
        const message = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
        if (message && message.source) {
          try {
            const outcome = await this.inbound.intake(message.source, { fallbackMessageId: `<imap.${uidValidity}.${uid}.${state.mailbox_id}@inbound.invalid>` });
            messages.inc({ kind: outcome.kind });
            log.info({ mailbox_id: state.mailbox_id, uid, kind: outcome.kind }, 'imap poller: message handled');
          } catch (err) {
            const count = stuckUid === uid ? state.stuck_count + 1 : 1;
            if (count < STUCK_LIMIT) {
              await session.recordStuck(uid, count);
              throw new Error(`handling UID ${uid} failed (${count} of ${STUCK_LIMIT}): ${describe(err)}`);
            }
            log.error({ mailbox_id: state.mailbox_id, uid, err: describe(err) }, `imap poller: message skipped after ${STUCK_LIMIT} failed attempts`);
            messages.inc({ kind: 'skipped' });
          }
        } else {
          messages.inc({ kind: 'skipped' });
        }
      }
      await session.recordProgress(uidValidity, uid, { clearStuck: stuckUid !== null });
      stuckUid = null;
    }
    if (uids.length > batch.length) return true;
    if (!same && scanned > batch[batch.length - 1]) await session.recordProgress(uidValidity, scanned, { clearStuck: false });
    return false;
  }
}

/** A failure's reason for logs and `last_error`, never the URL (it holds the password). */
function describe(err: unknown): string {
  const e = err as Error & { code?: string; responseText?: string; authenticationFailed?: boolean };
  if (e?.authenticationFailed) return `authentication failed${e.responseText ? `: ${e.responseText}` : ''}`;
  const parts = [e?.code, e?.message, e?.responseText].filter((p) => typeof p === 'string' && p.length > 0);
  return parts.length > 0 ? [...new Set(parts)].join(': ') : String(err);
}
