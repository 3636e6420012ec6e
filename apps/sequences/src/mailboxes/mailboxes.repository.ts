import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createTransport, Transporter } from 'nodemailer';
import { Pool } from 'pg';
import { In, Repository } from 'typeorm';
import { Mailbox } from '@app/contracts';
import { PG_POOL, Queryable, SecretBox } from '@app/platform';
import { SEQUENCES_CONFIG, SequencesConfig } from '../sequences.config';
import { MailboxEntity } from './mailbox.entity';

/** A mailbox as the engine and the API read it (`window_start`, `window_end` as `HH:MM`). */
export type MailboxRow = MailboxEntity;

const COLUMNS = `id, workspace_id, email, smtp_host, smtp_port, smtp_secure, smtp_auth_enc, imap_url_enc, imap_host, daily_cap, timezone,
  to_char(window_start, 'HH24:MI') AS window_start, to_char(window_end, 'HH24:MI') AS window_end, verified, created_at`;

export function renderMailbox(row: MailboxRow): Mailbox {
  return {
    id: row.id, object: 'mailbox', email: row.email, smtp_host: row.smtp_host, smtp_port: row.smtp_port, imap_host: row.imap_host,
    daily_cap: row.daily_cap, timezone: row.timezone, window_start: row.window_start, window_end: row.window_end, verified: row.verified,
    created_at: row.created_at.toISOString(),
  };
}

/** A mailbox to insert, its credentials in the clear (the repository seals them). */
export type NewMailbox = Pick<MailboxRow, 'id' | 'workspace_id' | 'email' | 'smtp_host' | 'smtp_port' | 'smtp_secure' | 'imap_host' | 'daily_cap' | 'timezone' | 'window_start' | 'window_end'> & {
  /** `user:password` of SMTP AUTH, if any. */
  smtp_auth: string | null;
  imap_url: string | null;
};

/** Connections of one mailbox's pooled SMTP transport; the engine never queues more than this per mailbox. */
export const SMTP_CONNECTIONS_PER_MAILBOX = 8;

/** Mailboxes, their encrypted credentials, and one pooled SMTP transport per mailbox. */
@Injectable()
export class MailboxesRepository implements OnApplicationShutdown {
  private readonly box: SecretBox;
  private readonly transports = new Map<string, Transporter>();

  constructor(
    @InjectRepository(MailboxEntity) private readonly rows: Repository<MailboxEntity>,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  onApplicationShutdown(): void {
    for (const t of this.transports.values()) t.close();
  }

  /** A new mailbox, its credentials sealed; not yet verified. */
  async insert(mailbox: NewMailbox): Promise<MailboxRow> {
    const { smtp_auth, imap_url, ...settings } = mailbox;
    await this.rows.insert({
      ...settings,
      smtp_auth_enc: smtp_auth ? this.box.seal(smtp_auth) : null,
      imap_url_enc: imap_url ? this.box.seal(imap_url) : null,
      verified: false,
    });
    return this.rows.findOneByOrFail({ id: mailbox.id });
  }

  async setVerified(id: string, verified: boolean): Promise<MailboxRow> {
    await this.rows.update({ id }, { verified });
    return this.rows.findOneByOrFail({ id });
  }

  /** The workspace's mailboxes among `ids`. */
  async findMany(workspaceId: string, ids: string[]): Promise<MailboxRow[]> {
    if (ids.length === 0) return [];
    return this.rows.find({ where: { workspace_id: workspaceId, id: In(ids) }, order: { id: 'ASC' } });
  }

  /**
   * findByIds: hand-written because the engine reads (and with `forUpdate` locks) the mailboxes
   * on its claim transaction's own connection.
   */
  async findByIds(ids: string[], db: Queryable = this.pool, forUpdate = false): Promise<MailboxRow[]> {
    const { rows } = await db.query<MailboxRow>(`SELECT ${COLUMNS} FROM mailboxes WHERE id = ANY($1) ORDER BY id${forUpdate ? ' FOR UPDATE' : ''}`, [ids]);
    return rows;
  }

  transportFor(row: MailboxRow): Transporter {
    let transport = this.transports.get(row.id);
    if (!transport) {
      const auth = row.smtp_auth_enc ? this.box.open(row.smtp_auth_enc) : null;
      const colon = auth ? auth.indexOf(':') : -1;
      transport = createTransport({
        host: row.smtp_host,
        port: row.smtp_port,
        secure: row.smtp_secure,
        pool: true,
        maxConnections: SMTP_CONNECTIONS_PER_MAILBOX,
        maxMessages: Infinity,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        auth: auth ? { user: auth.slice(0, colon), pass: auth.slice(colon + 1) } : undefined,
        tls: { rejectUnauthorized: this.config.smtpTlsRejectUnauthorized },
      });
      this.transports.set(row.id, transport);
    }
    return transport;
  }
}
