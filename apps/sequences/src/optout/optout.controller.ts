import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcRequest, SUBJECTS } from '@app/contracts';
import { OptoutService } from './optout.service';

/**
 * NATS request-reply handlers of the recipients' public links. These requests belong to no
 * workspace (the gateway passes only the request id in the context), so they are read here, not
 * by `@Rpc`, which refuses a context without a workspace.
 */
@Controller()
export class OptoutController {
  constructor(private readonly optout: OptoutService) {}

  /** One-click unsubscribe (RFC 8058) by the signed token of an email's link. */
  @MessagePattern(SUBJECTS.sequences.unsubscribe)
  unsubscribe(@Payload() message: RpcRequest<{ token: string }>) {
    return this.optout.unsubscribe(typeof message?.body?.token === 'string' ? message.body.token : '', message?.ctx ?? {});
  }

  /** The public opt-out portal: mails a confirmation link to the address. */
  @MessagePattern(SUBJECTS.sequences.optoutRequest)
  request(@Payload() message: RpcRequest<{ email: string }>) {
    return this.optout.request(message?.body?.email);
  }

  /** The portal's confirmation link: a global `opt_out` suppression. */
  @MessagePattern(SUBJECTS.sequences.optoutConfirm)
  confirm(@Payload() message: RpcRequest<{ token: string }>) {
    return this.optout.confirm(message?.body?.token);
  }
}
