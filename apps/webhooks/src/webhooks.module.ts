import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlatformModule, ServiceConfig } from '@app/platform';
import { DeliveriesRepository } from './dispatch/deliveries.repository';
import { Dispatcher } from './dispatch/dispatcher';
import { FanoutConsumer } from './dispatch/fanout.consumer';
import { OutcomeRecorder } from './dispatch/outcome-recorder';
import { OutcomesRepository } from './dispatch/outcomes.repository';
import { DeliveriesService } from './endpoints/deliveries.service';
import { EndpointsController } from './endpoints/endpoints.controller';
import { EndpointsRepository } from './endpoints/endpoints.repository';
import { EndpointsService } from './endpoints/endpoints.service';
import { WebhookEndpointEntity } from './endpoints/webhook-endpoint.entity';
import { EventsController } from './events/events.controller';
import { EventsRepository } from './events/events.repository';
import { EventsService } from './events/events.service';
import { WEBHOOKS_CONFIG, WebhooksConfig } from './webhooks-config';

@Module({})
export class WebhooksModule {
  static register(config: ServiceConfig, webhooks: WebhooksConfig): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [PlatformModule.forService(config), TypeOrmModule.forFeature([WebhookEndpointEntity])],
      controllers: [EndpointsController, EventsController],
      providers: [
        { provide: WEBHOOKS_CONFIG, useValue: webhooks },
        EndpointsRepository,
        EndpointsService,
        DeliveriesService,
        DeliveriesRepository,
        OutcomesRepository,
        OutcomeRecorder,
        Dispatcher,
        FanoutConsumer,
        EventsRepository,
        EventsService,
      ],
    };
  }
}
