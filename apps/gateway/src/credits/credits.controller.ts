import { Controller, Get } from '@nestjs/common';
import { CreditBalance, RequestContext, SUBJECTS } from '@app/contracts';
import { Ctx } from '../http/request-context.decorator';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/credits')
export class CreditsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  balance(@Ctx() ctx: RequestContext): Promise<CreditBalance> {
    return this.rpc.send(SUBJECTS.billing.creditsBalance, ctx, {});
  }
}
