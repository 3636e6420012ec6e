import { Inject, Injectable } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { PG_POOL } from '@app/platform';

/** First key of the session advisory lock a replica holds while it polls a mailbox (the second is hashtext(mailbox id)). */
export const IMAP_POLL_LOCK_CLASS = 72_201_448;

/** A mailbox's IMAP polling state, with what a poll needs of the mailbox. */
export interface ImapStateRow {
  mailbox_id: string;
  uid_validity: string | null;
  last_uid: string;
  last_polled_at: Date | null;
  consecutive_failures: number;
  stuck_uid: string | null;
  stuck_count: number;
  imap_url_enc: string;
  created_at: Date;
}

/**
 * One mailbox's poll as the poller sees it: the state read under the mailbox's lock, and the
 * state's writes, which go through the connection holding that lock.
 */
export interface ImapPollSession {
  readonly state: ImapStateRow;
  /** A poll that worked: failures cleared, the next one due in `nextInMs`. */
  recordPolled(nextInMs: number): Promise<void>;
  /** A poll that failed: its reason and count, the next one due in `nextInMs`. */
  recordFailed(reason: string, failures: number, nextInMs: number): Promise<void>;
  /** Handling message `uid` failed `count` polls in a row. */
  recordStuck(uid: number, count: number): Promise<void>;
  /** Messages up to `lastUid` of this UIDVALIDITY are handled. */
  recordProgress(uidValidity: string, lastUid: number, options: { clearStuck: boolean }): Promise<void>;
}

/**
 * The polling state of each mailbox with an IMAP URL. A poll runs on one connection of its own
 * that holds the mailbox's session advisory lock for the whole poll (`pollSession`): a replica
 * that dies drops its connection, and with it the lock.
 */
@Injectable()
export class ImapStateRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Runs `poll` on a connection of its own holding the mailbox's advisory lock, with the state
   * read under that lock (a replica that polled just before has recorded its last UID). False,
   * without running it, when another replica holds the lock or the mailbox is no longer due. A
   * connection whose unlock failed, or whose poll threw, is closed rather than returned to the
   * pool: closing it releases the lock.
   */
  async pollSession(mailboxId: string, poll: (session: ImapPollSession) => Promise<void>): Promise<boolean> {
    const db = await this.pool.connect();
    let broken = false;
    try {
      if (!(await this.tryLock(db, mailboxId))) return false;
      try {
        const state = await this.findDue(db, mailboxId);
        if (!state) return false;
        await poll({
          state,
          recordPolled: (nextInMs) => this.recordPolled(db, mailboxId, nextInMs),
          recordFailed: (reason, failures, nextInMs) => this.recordFailed(db, mailboxId, reason, failures, nextInMs),
          recordStuck: (uid, count) => this.recordStuck(db, mailboxId, uid, count),
          recordProgress: (uidValidity, lastUid, options) => this.recordProgress(db, mailboxId, uidValidity, lastUid, options),
        });
        return true;
      } finally {
        await this.unlock(db, mailboxId).catch(() => {
          broken = true;
        });
      }
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      db.release(broken);
    }
  }

  /** Mailboxes given an IMAP URL since the last tick get their state row. */
  async addMissing(): Promise<void> {
    await this.pool.query(
      `INSERT INTO mailbox_imap_state (mailbox_id)
       SELECT m.id FROM mailboxes m WHERE m.imap_url_enc IS NOT NULL AND NOT EXISTS (SELECT 1 FROM mailbox_imap_state s WHERE s.mailbox_id = m.id)
       ON CONFLICT DO NOTHING`,
    );
  }

  /** Up to `limit` due mailboxes, longest due first, other than those this process is polling. */
  async due(polling: string[], limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ mailbox_id: string }>(
      `SELECT mailbox_id FROM mailbox_imap_state WHERE next_poll_at <= now() AND NOT (mailbox_id = ANY($1)) ORDER BY next_poll_at LIMIT $2`,
      [polling, limit],
    );
    return rows.map((r) => r.mailbox_id);
  }

  private async tryLock(db: PoolClient, mailboxId: string): Promise<boolean> {
    const { rows } = await db.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [IMAP_POLL_LOCK_CLASS, mailboxId]);
    return rows[0].ok;
  }

  private async unlock(db: PoolClient, mailboxId: string): Promise<void> {
    await db.query('SELECT pg_advisory_unlock($1, hashtext($2))', [IMAP_POLL_LOCK_CLASS, mailboxId]);
  }

  /** The mailbox's state if it is still due and still has an IMAP URL. */
  private async findDue(db: PoolClient, mailboxId: string): Promise<ImapStateRow | undefined> {
    const { rows } = await db.query<ImapStateRow>(
      `SELECT s.mailbox_id, s.uid_validity, s.last_uid, s.last_polled_at, s.consecutive_failures, s.stuck_uid, s.stuck_count, m.imap_url_enc, m.created_at
       FROM mailbox_imap_state s JOIN mailboxes m ON m.id = s.mailbox_id
       WHERE s.mailbox_id = $1 AND s.next_poll_at <= now() AND m.imap_url_enc IS NOT NULL`,
      [mailboxId],
    );
    return rows[0];
  }

  /** A poll that worked: failures cleared, the next one due in `nextInMs`. */
  private async recordPolled(db: PoolClient, mailboxId: string, nextInMs: number): Promise<void> {
    await db.query(
      `UPDATE mailbox_imap_state SET last_polled_at = now(), last_error = NULL, consecutive_failures = 0,
         next_poll_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE mailbox_id = $1`,
      [mailboxId, nextInMs],
    );
  }

  /** A poll that failed: its reason and count, the next one due in `nextInMs`. */
  private async recordFailed(db: PoolClient, mailboxId: string, reason: string, failures: number, nextInMs: number): Promise<void> {
    await db.query(
      `UPDATE mailbox_imap_state SET last_error = $2, consecutive_failures = $3, next_poll_at = now() + make_interval(secs => $4::double precision / 1000)
       WHERE mailbox_id = $1`,
      [mailboxId, reason, failures, nextInMs],
    );
  }

  /** Handling message `uid` failed `count` polls in a row. */
  private async recordStuck(db: PoolClient, mailboxId: string, uid: number, count: number): Promise<void> {
    await db.query('UPDATE mailbox_imap_state SET stuck_uid = $2, stuck_count = $3 WHERE mailbox_id = $1', [mailboxId, uid, count]);
  }

  /** Messages up to `lastUid` of this UIDVALIDITY are handled. */
  private async recordProgress(db: PoolClient, mailboxId: string, uidValidity: string, lastUid: number, options: { clearStuck: boolean }): Promise<void> {
    await db.query(
      `UPDATE mailbox_imap_state SET uid_validity = $2, last_uid = $3${options.clearStuck ? ', stuck_uid = NULL, stuck_count = 0' : ''} WHERE mailbox_id = $1`,
      [mailboxId, uidValidity, lastUid],
    );
  }
}
