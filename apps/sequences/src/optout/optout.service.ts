import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { CURRENT_API_VERSION, RequestContext, Suppression } from '@app/contracts';
import { DomainError, rootLogger } from '@app/platform';
import { CrmClient } from '../crm.client';
import { EnrollmentsRepository } from '../enrollments/enrollments.repository';
import { verifyUnsubscribeToken } from '../engine/unsubscribe-token';
import { SEQUENCES_CONFIG, SequencesConfig } from '../sequences.config';
import { normalizeEmail } from '../suppressions/matching';
import { SuppressionsService } from '../suppressions/suppressions.service';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LINK_TTL_S = 48 * 3600;
const log = rootLogger('sequences');

/** The portal cannot mail: a 503 that says so, never a 500 (nothing was recorded, a later try may work). */
const cannotMail = (message: string) => new DomainError('service_unavailable', `${message}; nothing was recorded, try again later`);

/**
 * What a recipient can do without an API key. The one-click unsubscribe link of an email stops
 * that workspace's sequences for the address. The public opt-out portal: a recipient asks with an
 * address, confirms by the signed link mailed to that address, and a global `opt_out`
 * suppression is created (every workspace).
 */
@Injectable()
export class OptoutService implements OnApplicationShutdown {
  private transport?: Transporter;

  constructor(
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
    private readonly suppressions: SuppressionsService,
    private readonly crm: CrmClient,
    private readonly enrollments: EnrollmentsRepository,
  ) {}

  onApplicationShutdown(): void {
    this.transport?.close();
  }

  private sign(payload: string): string {
    return createHmac('sha256', `optout:${this.config.secretKey}`).update(payload).digest('base64url');
  }

  tokenFor(email: string, nowMs = Date.now()): string {
    const payload = `${Buffer.from(normalizeEmail(email)).toString('base64url')}.${Math.floor(nowMs / 1000) + LINK_TTL_S}`;
    return `${payload}.${this.sign(payload)}`;
  }

  /**
   * One-click unsubscribe (RFC 8058) by the signed token of an email's link: a workspace
   * suppression `unsubscribe`. `requestCtx` carries only the request's tracing fields.
   */
  async unsubscribe(token: string, requestCtx: Partial<RequestContext>): Promise<{ object: 'unsubscribe'; email: string; unsubscribed: true }> {
    const enrollmentId = verifyUnsubscribeToken(token, this.config.secretKey);
    if (!enrollmentId) throw new DomainError('not_found', 'This unsubscribe link is not valid', 'token');
    const recipient = await this.enrollments.recipientOf(enrollmentId);
    if (!recipient) throw new DomainError('not_found', 'This unsubscribe link is not valid', 'token');
    const ctx = { ...requestCtx, workspace_id: recipient.workspace_id, livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    await this.suppressions.create(ctx, { type: 'email', value: recipient.email, reason: 'unsubscribe' }, 'unsubscribed');
    return { object: 'unsubscribe', email: recipient.email, unsubscribed: true };
  }

  /**
   * Mails the confirmation link; the answer is the same whatever the address (it reveals nothing),
   * so a server that refuses the recipient is not told apart from one that takes it.
   */
  async request(email: unknown): Promise<{ object: 'optout_request'; sent: true }> {
    if (typeof email !== 'string' || email.length > 320 || !EMAIL.test(email.trim())) throw DomainError.invalid('email', 'email must be an email address');
    if (!this.config.optoutSmtpUrl) throw cannotMail('The opt-out portal has no mail server configured (OPTOUT_SMTP_URL)');
    this.transport ??= createTransport(this.config.optoutSmtpUrl);
    const link = `${this.config.publicApiUrl}/optout/confirm/${this.tokenFor(email)}`;
    try {
      await this.transport.sendMail({
        from: this.config.optoutFrom,
        to: email.trim(),
        subject: 'Confirm your opt-out',
        text: `Someone (hopefully you) asked that ${email.trim()} never receive outreach email sent through our platform.\n\nConfirm: ${link}\n\nIf it was not you, ignore this email. The link works for 48 hours.`,
      });
    } catch (err) {
      // EENVELOPE: the server refused the recipient, which the answer must not reveal
      if ((err as { code?: string }).code === 'EENVELOPE') return { object: 'optout_request', sent: true };
      log.warn({ err, code: (err as { code?: string }).code }, 'opt-out confirmation email not sent');
      throw cannotMail('The opt-out portal could not reach its mail server');
    }
    return { object: 'optout_request', sent: true };
  }

  async confirm(token: unknown): Promise<Suppression> {
    const invalid = () => new DomainError('not_found', 'This confirmation link is not valid or has expired', 'token');
    const parts = typeof token === 'string' ? token.split('.') : [];
    if (parts.length !== 3) throw invalid();
    const payload = `${parts[0]}.${parts[1]}`;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(parts[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    if (Number(parts[1]) * 1000 < Date.now()) throw invalid();
    const email = Buffer.from(parts[0], 'base64url').toString('utf8');
    // asked before the transaction: a crm that does not answer fails the confirmation (the link still works later)
    const workspaces = await this.crm.workspacesWithLead(email);
    const ctx = { workspace_id: '', key_id: 'optout-portal', livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    return this.suppressions.create(ctx, { type: 'email', value: email, reason: 'opt_out', scope: 'global' }, 'unsubscribed', workspaces);
  }
}
