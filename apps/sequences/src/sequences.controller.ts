import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Pool } from 'pg';
import {
  CreateEnrollmentsRequest, CreateMailboxRequest, CreateSequenceRequest, CreateSuppressionRequest, CURRENT_API_VERSION, DeleteEnrollmentRequest,
  InboundRawRequest, ListSequencesRequest, ListSuppressionsRequest, RequestContext, RpcRequest, SequenceIdRequest, SetCountryRuleRequest, SUBJECTS,
  SUPPRESSION_REASONS,
} from '@app/contracts';
import { DomainError, PG_POOL, unpack } from '@app/platform';
import { verifyUnsubscribeToken } from './engine/unsubscribe-token';
import { InboundService } from './inbound/inbound.service';
import { MailboxesRepository } from './mailboxes/mailboxes.repository';
import { OptoutService } from './optout/optout.service';
import { SEQUENCES_CONFIG, SequencesConfig } from './sequences.config';
import { SequencesService } from './sequences/sequences.service';
import { SuppressionsService } from './suppressions/suppressions.service';

/** NATS request-reply handlers of the sequences subjects. */
@Controller()
export class SequencesController {
  constructor(
    private readonly sequences: SequencesService,
    private readonly suppressions: SuppressionsService,
    private readonly mailboxes: MailboxesRepository,
    private readonly inbound: InboundService,
    private readonly optout: OptoutService,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
  ) {}

  @MessagePattern(SUBJECTS.sequences.list)
  list(@Payload() message: RpcRequest<ListSequencesRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.list(ctx, body);
  }

  @MessagePattern(SUBJECTS.sequences.get)
  get(@Payload() message: RpcRequest<SequenceIdRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.get(ctx, body.id);
  }

  @MessagePattern(SUBJECTS.sequences.create)
  create(@Payload() message: RpcRequest<CreateSequenceRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.create(ctx, body);
  }

  /** Admin CLI: which workspace a sequence belongs to (the commands name only the sequence). */
  @MessagePattern(SUBJECTS.sequences.owner)
  async owner(@Payload() message: RpcRequest<SequenceIdRequest>) {
    const { ctx, body } = unpack(message);
    if (ctx.key_id !== 'admin-cli') throw DomainError.notFound('sequence', String(body?.id), 'id');
    const { rows } = await this.pool.query<{ workspace_id: string }>('SELECT workspace_id FROM sequences WHERE id = $1', [body?.id]);
    if (!rows[0]) throw DomainError.notFound('sequence', String(body?.id), 'id');
    return rows[0];
  }

  @MessagePattern(SUBJECTS.sequences.launch)
  launch(@Payload() message: RpcRequest<SequenceIdRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.launch(ctx, body.id);
  }

  @MessagePattern(SUBJECTS.sequences.pause)
  pause(@Payload() message: RpcRequest<SequenceIdRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.pause(ctx, body.id);
  }

  @MessagePattern(SUBJECTS.sequences.resume)
  resume(@Payload() message: RpcRequest<SequenceIdRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.resume(ctx, body.id);
  }

  @MessagePattern(SUBJECTS.sequences.enrollmentsCreate)
  enroll(@Payload() message: RpcRequest<CreateEnrollmentsRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.enroll(ctx, body);
  }

  @MessagePattern(SUBJECTS.sequences.enrollmentsDelete)
  unenroll(@Payload() message: RpcRequest<DeleteEnrollmentRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.unenroll(ctx, body);
  }

  @MessagePattern(SUBJECTS.sequences.suppressionsList)
  listSuppressions(@Payload() message: RpcRequest<ListSuppressionsRequest>) {
    const { ctx, body } = unpack(message);
    return this.suppressions.list(ctx, body);
  }

  @MessagePattern(SUBJECTS.sequences.suppressionsCreate)
  createSuppression(@Payload() message: RpcRequest<CreateSuppressionRequest>) {
    const { ctx, body } = unpack(message);
    if (body?.type !== 'email' && body?.type !== 'domain') throw DomainError.invalid('type', 'type must be email or domain');
    if (typeof body.value !== 'string' || !body.value.trim()) throw DomainError.invalid(body.type, `${body.type} is required`);
    if (!(SUPPRESSION_REASONS as readonly string[]).includes(body.reason)) throw DomainError.invalid('reason', 'unknown reason');
    // global entries come only from the application side (the admin CLI's key id) and the opt-out portal
    if (body.scope === 'global' && ctx.key_id !== 'admin-cli') throw DomainError.invalid('scope', 'global entries come from the opt-out portal');
    return this.suppressions.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.sequences.mailboxesCreate)
  createMailbox(@Payload() message: RpcRequest<CreateMailboxRequest>) {
    const { ctx, body } = unpack(message);
    return this.mailboxes.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.sequences.countriesSet)
  setCountry(@Payload() message: RpcRequest<SetCountryRuleRequest>) {
    const { ctx, body } = unpack(message);
    return this.sequences.setCountryRule(ctx, body);
  }

  /** A raw RFC 822 message (forwarding setups, tests); the context only authenticates the caller. */
  @MessagePattern(SUBJECTS.sequences.inboundRaw)
  intake(@Payload() message: RpcRequest<InboundRawRequest>) {
    const { body } = unpack(message);
    if (typeof body?.raw !== 'string' || body.raw.length === 0) throw DomainError.invalid('raw', 'raw must be an RFC 822 message');
    return this.inbound.intake(body.raw);
  }

  /** One-click unsubscribe (RFC 8058) by the signed token of an email's link: a workspace suppression `unsubscribe`. */
  @MessagePattern(SUBJECTS.sequences.unsubscribe)
  async unsubscribe(@Payload() message: RpcRequest<{ token: string }>) {
    const token = typeof message?.body?.token === 'string' ? message.body.token : '';
    const enrollmentId = verifyUnsubscribeToken(token, this.config.secretKey);
    if (!enrollmentId) throw new DomainError('not_found', 'This unsubscribe link is not valid', 'token');
    const { rows } = await this.pool.query<{ workspace_id: string; email: string }>('SELECT workspace_id, email FROM enrollments WHERE id = $1', [enrollmentId]);
    if (!rows[0]) throw new DomainError('not_found', 'This unsubscribe link is not valid', 'token');
    const ctx = { ...(message.ctx ?? {}), workspace_id: rows[0].workspace_id, livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    await this.suppressions.create(ctx, { type: 'email', value: rows[0].email, reason: 'unsubscribe' }, 'unsubscribed');
    return { object: 'unsubscribe', email: rows[0].email, unsubscribed: true };
  }

  /** The public opt-out portal: mails a confirmation link to the address. */
  @MessagePattern(SUBJECTS.sequences.optoutRequest)
  optoutRequest(@Payload() message: RpcRequest<{ email: string }>) {
    return this.optout.request(message?.body?.email);
  }

  /** The portal's confirmation link: a global `opt_out` suppression. */
  @MessagePattern(SUBJECTS.sequences.optoutConfirm)
  optoutConfirm(@Payload() message: RpcRequest<{ token: string }>) {
    return this.optout.confirm(message?.body?.token);
  }
}
