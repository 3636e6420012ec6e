import { envInt, secretSetting } from '@app/platform';

export const DEV_SEQUENCES_SECRET_KEY = 'dev-only-sequences-secret-key-change-me';

export interface SequencesConfig {
  secretKey: string;
  publicApiUrl: string;
  tickMs: number;
  batch: number;
  sendLeaseMs: number;
  sendConcurrency: number;
  engineEnabled: boolean;
  /** Testing only: the engine's clock runs ahead by `test_clock.offset_ms` (waits tested without sleeping). */
  testClock: boolean;
  /** SMTP server of the opt-out portal's confirmation emails (none: the portal cannot confirm). */
  optoutSmtpUrl: string | null;
  optoutFrom: string;
  /** IMAP polling of mailboxes with an IMAP URL (SEQUENCES_IMAP_POLL=off: this process polls none). */
  imapPoll: boolean;
  /** Time between two polls of one mailbox (by whichever replica takes it). */
  imapPollMs: number;
  /** Mailboxes one process polls at once (each holds one PostgreSQL connection while it is polled). */
  imapConcurrency: number;
  /** Messages handled per mailbox poll; the rest at once in the next. */
  imapBatch: number;
  /** Larger messages are skipped (logged), not downloaded. */
  imapMaxMessageBytes: number;
  /** `false` (SMTP_TLS_REJECT_UNAUTHORIZED) accepts self-signed certificates of mailbox SMTP servers. */
  smtpTlsRejectUnauthorized: boolean;
}

export const SEQUENCES_CONFIG = Symbol('SEQUENCES_CONFIG');

export function loadSequencesConfig(env: NodeJS.ProcessEnv = process.env): SequencesConfig {
  const secretKey = secretSetting(env, 'SEQUENCES_SECRET_KEY', DEV_SEQUENCES_SECRET_KEY);
  return {
    secretKey,
    publicApiUrl: (env.PUBLIC_API_URL || `http://127.0.0.1:${env.PORT || 3000}/api/v1`).replace(/\/$/, ''),
    tickMs: envInt(env, 'SEQUENCES_TICK_MS', 1000, 10, 600_000),
    batch: envInt(env, 'SEQUENCES_BATCH', 200, 1, 10_000),
    sendLeaseMs: envInt(env, 'SEQUENCES_SEND_LEASE_MS', 60_000, 1000, 3_600_000),
    sendConcurrency: envInt(env, 'SEQUENCES_SEND_CONCURRENCY', 32, 1, 1000),
    engineEnabled: env.SEQUENCES_ENGINE !== 'off',
    testClock: env.SEQUENCES_TEST_CLOCK === 'on',
    optoutSmtpUrl: env.OPTOUT_SMTP_URL || null,
    optoutFrom: env.OPTOUT_FROM || 'Opt-out <no-reply@localhost>',
    imapPoll: env.SEQUENCES_IMAP_POLL !== 'off',
    imapPollMs: envInt(env, 'SEQUENCES_IMAP_POLL_MS', 60_000, 100, 86_400_000),
    imapConcurrency: envInt(env, 'SEQUENCES_IMAP_CONCURRENCY', 4, 1, 100),
    imapBatch: envInt(env, 'SEQUENCES_IMAP_BATCH', 200, 1, 10_000),
    imapMaxMessageBytes: envInt(env, 'SEQUENCES_IMAP_MAX_MESSAGE_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    smtpTlsRejectUnauthorized: env.SMTP_TLS_REJECT_UNAUTHORIZED !== 'false',
  };
}
