import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, ServiceConfig } from '@app/platform';
import { BILLING_CONFIG, BillingConfig } from './billing.config';
import { CreditsController } from './credits/credits.controller';
import { CreditsService } from './credits/credits.service';
import { LedgerRepository } from './credits/ledger.repository';
import { WorkspaceCreatedConsumer } from './credits/workspace-created.consumer';

@Module({})
export class BillingModule {
  static register(config: ServiceConfig, billing: BillingConfig): DynamicModule {
    return {
      module: BillingModule,
      imports: [PlatformModule.forService(config)],
      controllers: [CreditsController],
      providers: [
        LedgerRepository,
        CreditsService,
        { provide: BILLING_CONFIG, useValue: billing },
        WorkspaceCreatedConsumer,
      ],
    };
  }
}
