import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, ServiceConfig } from '@app/platform';
import { EntitiesRepository } from './entities/entities.repository';
import { EmailVerifier, loadVerifierConfig } from './reveals/email-verifier';
import { EMAIL_VERIFIER, RevealsService } from './reveals/reveals.service';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';
import { ServiceClient } from './service-client';

@Module({})
export class SearchModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: SearchModule,
      imports: [PlatformModule.forService(config)],
      controllers: [SearchController],
      providers: [
        SearchService, EntitiesRepository, ServiceClient, RevealsService,
        { provide: EMAIL_VERIFIER, useFactory: () => new EmailVerifier(loadVerifierConfig()) },
      ],
    };
  }
}
