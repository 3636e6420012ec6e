import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, ServiceConfig } from '@app/platform';
import { loadBillingConfig } from './billing.config';
import { CreditsController } from './credits.controller';
import { BILLING_CONFIG, CreditsService } from './credits.service';
import { workspaceCreatedConsumer } from './workspace-created.consumer';

@Module({})
export class BillingModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: BillingModule,
      imports: [PlatformModule.forService(config, { consumers: [workspaceCreatedConsumer] })],
      controllers: [CreditsController],
      providers: [CreditsService, { provide: BILLING_CONFIG, useFactory: () => loadBillingConfig() }],
    };
  }
}
