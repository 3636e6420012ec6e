import { Controller, Inject, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConsumeCreditsRequest, GrantCreditsRequest, RefundCreditsRequest, RpcRequest, SUBJECTS } from '@app/contracts';
import { runPeriodically, unpack } from '@app/platform';
import { BillingConfig } from './billing.config';
import { BILLING_CONFIG, CreditsService } from './credits.service';

/** NATS request-reply handlers of billing.credits.* and the period renewal job. */
@Controller()
export class CreditsController implements OnApplicationBootstrap, OnApplicationShutdown {
  private stop?: () => void;

  constructor(
    private readonly credits: CreditsService,
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.stop = runPeriodically(() => this.credits.renewDue(), this.config.renewalEveryMs);
  }

  onApplicationShutdown(): void {
    this.stop?.();
  }

  @MessagePattern(SUBJECTS.billing.creditsConsume)
  consume(@Payload() message: RpcRequest<ConsumeCreditsRequest>) {
    const { ctx, body } = unpack(message);
    return this.credits.consume(ctx, body);
  }

  @MessagePattern(SUBJECTS.billing.creditsRefund)
  refund(@Payload() message: RpcRequest<RefundCreditsRequest>) {
    const { ctx, body } = unpack(message);
    return this.credits.refund(ctx, body);
  }

  @MessagePattern(SUBJECTS.billing.creditsBalance)
  balance(@Payload() message: RpcRequest<unknown>) {
    return this.credits.balance(unpack(message).ctx);
  }

  @MessagePattern(SUBJECTS.billing.creditsGrant)
  grant(@Payload() message: RpcRequest<GrantCreditsRequest>) {
    const { ctx, body } = unpack(message);
    return this.credits.grant(ctx, body);
  }

  @MessagePattern(SUBJECTS.billing.creditsRenew)
  renew(@Payload() message: RpcRequest<unknown>) {
    return this.credits.renew(unpack(message).ctx);
  }
}
