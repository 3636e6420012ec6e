import { Controller, Get } from '@nestjs/common';
import { CreditBalance, RequestContext, SUBJECTS } from '@app/contracts';
import { Ctx } from '../http/request-context.decorator';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/credits')
export class CreditsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({
    summary: 'Retrieve the credit balance',
    description: 'With the 20 most recent ledger entries. Plan credits are used before pack credits.',
    response: 'CreditBalance',
    errors: [401, 403, 429, 500],
  })
  balance(@Ctx() ctx: RequestContext): Promise<CreditBalance> {
    return this.rpc.send(SUBJECTS.billing.creditsBalance, ctx, {});
  }
}
