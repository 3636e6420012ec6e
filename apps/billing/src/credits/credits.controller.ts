import { Controller } from '@nestjs/common';
import { ConsumeCreditsRequest, GrantCreditsRequest, LeaseCreditsRequest, OpenAccountRequest, RefundCreditsRequest, RequestContext, SettleLeaseRequest, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { CreditsService } from './credits.service';

/** NATS request-reply handlers of billing.credits.*. */
@Controller()
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Rpc(SUBJECTS.billing.creditsConsume)
  consume(ctx: RequestContext, body: ConsumeCreditsRequest) {
    return this.credits.consume(ctx, body);
  }

  @Rpc(SUBJECTS.billing.creditsRefund)
  refund(ctx: RequestContext, body: RefundCreditsRequest) {
    return this.credits.refund(ctx, body);
  }

  @Rpc(SUBJECTS.billing.creditsLease)
  lease(ctx: RequestContext, body: LeaseCreditsRequest) {
    return this.credits.lease(ctx, body);
  }

  @Rpc(SUBJECTS.billing.creditsSettleLease)
  settleLease(ctx: RequestContext, body: SettleLeaseRequest) {
    return this.credits.settleLease(ctx, body);
  }

  @Rpc(SUBJECTS.billing.creditsBalance)
  balance(ctx: RequestContext) {
    return this.credits.balance(ctx);
  }

  @Rpc(SUBJECTS.billing.creditsGrant)
  grant(ctx: RequestContext, body: GrantCreditsRequest) {
    return this.credits.grant(ctx, body);
  }

  @Rpc(SUBJECTS.billing.accountsOpen)
  open(ctx: RequestContext, body: OpenAccountRequest) {
    return this.credits.open(ctx, body);
  }

  @Rpc(SUBJECTS.billing.creditsRenew)
  renew(ctx: RequestContext) {
    return this.credits.renew(ctx);
  }
}
