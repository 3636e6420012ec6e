import { Controller } from '@nestjs/common';
import { InboundRawRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { DomainError, Rpc } from '@app/platform';
import { InboundService } from './inbound.service';

/** NATS request-reply handler of the raw intake of replies and bounces. */
@Controller()
export class InboundController {
  constructor(private readonly inbound: InboundService) {}

  /** A raw RFC 822 message (forwarding setups, tests); the context only authenticates the caller. */
  @Rpc(SUBJECTS.sequences.inboundRaw)
  intake(_ctx: RequestContext, body: InboundRawRequest) {
    if (typeof body?.raw !== 'string' || body.raw.length === 0) throw DomainError.invalid('raw', 'raw must be an RFC 822 message');
    return this.inbound.intake(body.raw);
  }
}
