import { DynamicModule, Module } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION, PlatformModule, ServiceClient, ServiceConfig } from '@app/platform';
import { CreditsService } from './credits/credits.service';
import { PendingRefundsRepository } from './credits/pending-refunds.repository';
import { LeasesController } from './credits/leases.controller';
import { LeasesRepository } from './credits/leases.repository';
import { LeasesService } from './credits/leases.service';
import { EntitiesRepository } from './entities/entities.repository';
import { MemorySearchIndex } from './entities/memory-search-index.store';
import { IngestController } from './ingest/ingest.controller';
import { IngestService } from './ingest/ingest.service';
import { OrganizationsController } from './organizations/organizations.controller';
import { OrganizationsService } from './organizations/organizations.service';
import { EmailVerifier } from './reveals/email-verifier';
import { REVEAL_CLAIM_OWNERS, RevealOwner } from './reveals/reveal-owner';
import { RevealsController } from './reveals/reveals.controller';
import { RevealsRepository } from './reveals/reveals.repository';
import { EMAIL_VERIFIER, RevealsService } from './reveals/reveals.service';
import { ProfilesRepository } from './search/profiles.repository';
import { SearchController } from './search/search.controller';
import { SearchReads } from './search/search-reads.store';
import { SearchService } from './search/search.service';
import { SEARCH_CONFIG, SearchConfig } from './search.config';

@Module({})
export class SearchModule {
  static register(config: ServiceConfig, search: SearchConfig): DynamicModule {
    return {
      module: SearchModule,
      imports: [PlatformModule.forService(config)],
      controllers: [SearchController, RevealsController, OrganizationsController, IngestController, LeasesController],
      providers: [
        { provide: SEARCH_CONFIG, useValue: search },
        EntitiesRepository, MemorySearchIndex,
        // search asks billing and crm within its own deadline (SEARCH_PEER_TIMEOUT_MS), not RPC_TIMEOUT_MS
        { provide: ServiceClient, inject: [NATS_CONNECTION], useFactory: (nc: NatsConnection) => new ServiceClient(nc, { rpcTimeoutMs: search.peerTimeoutMs, rpcAttemptTimeoutMs: config.rpcAttemptTimeoutMs }) },
        SearchService, ProfilesRepository, SearchReads,
        CreditsService, PendingRefundsRepository, LeasesService, LeasesRepository,
        RevealsService, RevealsRepository,
        // this process as the owner of its reveal claims: a session of its own holds its liveness lock
        { provide: RevealOwner, useFactory: () => new RevealOwner(config.databaseUrl, REVEAL_CLAIM_OWNERS) },
        OrganizationsService, IngestService,
        { provide: EMAIL_VERIFIER, useFactory: () => new EmailVerifier(search.verifier) },
      ],
    };
  }
}
