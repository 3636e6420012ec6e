import { Controller, Get } from '@nestjs/common';
import { CreditBalance, RequestContext, SUBJECTS } from '@app/contracts';
import { Ctx } from '../http/request-context.decorator';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

/** The balance as the spec shows it: what leases hold is billing's and search's business. */
function withoutLeased(balance: CreditBalance & { leased?: number }): CreditBalance {
  const { leased: _leased, ...shown } = balance;
  void _leased;
  return shown;
}

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
  async balance(@Ctx() ctx: RequestContext): Promise<CreditBalance> {
    const balance = await this.rpc.send<CreditBalance & { leased?: number }>(SUBJECTS.billing.creditsBalance, ctx, {});
    if (!balance.leased) return balance;
    // search holds some of the credits in a lease: it settles its leases (the pages charged
    // against them become the ledger's consumes) and the balance is read again, exact. Search
    // not answering: billing's balance as it is (the ledger's sum, the leases' pages not in it yet).
    try {
      await this.rpc.send(SUBJECTS.search.leasesSettle, ctx, {});
    } catch {
      return withoutLeased(balance);
    }
    return withoutLeased(await this.rpc.send<CreditBalance & { leased?: number }>(SUBJECTS.billing.creditsBalance, ctx, {}));
  }
}
