import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, ServiceConfig } from '@app/platform';
import { Dispatcher } from './dispatch/dispatcher';
import { FanoutConsumer } from './dispatch/fanout.consumer';
import { EndpointsController } from './endpoints/endpoints.controller';
import { EndpointsRepository } from './endpoints/endpoints.repository';
import { EndpointsService } from './endpoints/endpoints.service';
import { loadWebhooksConfig, WEBHOOKS_CONFIG, WebhooksConfig } from './webhooks-config';

@Module({})
export class WebhooksModule {
  static register(config: ServiceConfig, webhooks: WebhooksConfig = loadWebhooksConfig()): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [PlatformModule.forService(config)],
      controllers: [EndpointsController],
      providers: [{ provide: WEBHOOKS_CONFIG, useValue: webhooks }, EndpointsRepository, EndpointsService, Dispatcher, FanoutConsumer],
    };
  }
}
