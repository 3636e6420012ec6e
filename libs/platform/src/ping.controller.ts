import { Controller, Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { pingSubject, ServiceName } from '@app/contracts';

/** A controller answering `<service>.ping` with `{service, ok: true}`. */
export function pingControllerFor(service: ServiceName): Type<unknown> {
  @Controller()
  class PingController {
    @MessagePattern(pingSubject(service))
    ping(): { service: ServiceName; ok: true } {
      return { service, ok: true };
    }
  }
  return PingController;
}
