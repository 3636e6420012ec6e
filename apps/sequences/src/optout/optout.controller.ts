import { Controller } from '@nestjs/common';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { PublicRpc } from '@app/platform';
import { OptoutService } from './optout.service';

/**
 * NATS request-reply handlers of the recipients' public links. These requests belong to no
 * workspace (the gateway passes only the request id in the context), so they are `@PublicRpc`,
 * not `@Rpc`, which refuses a context without a workspace.
 */
@Controller()
export class OptoutController {
  constructor(private readonly optout: OptoutService) {}

  /** One-click unsubscribe (RFC 8058) by the signed token of an email's link. */
  @PublicRpc(SUBJECTS.sequences.unsubscribe)
  unsubscribe(ctx: Partial<RequestContext>, body: { token?: unknown } | undefined) {
    return this.optout.unsubscribe(typeof body?.token === 'string' ? body.token : '', ctx);
  }

  /** The public opt-out portal: mails a confirmation link to the address. */
  @PublicRpc(SUBJECTS.sequences.optoutRequest)
  request(_ctx: Partial<RequestContext>, body: { email?: unknown } | undefined) {
    return this.optout.request(body?.email);
  }

  /** The portal's confirmation link: a global `opt_out` suppression. */
  @PublicRpc(SUBJECTS.sequences.optoutConfirm)
  confirm(_ctx: Partial<RequestContext>, body: { token?: unknown } | undefined) {
    return this.optout.confirm(body?.token);
  }
}
