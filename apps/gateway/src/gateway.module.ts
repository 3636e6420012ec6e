import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { createFileStorage, FILE_STORAGE, loadExportLinkConfig, PlatformModule, SERVICE_CONFIG } from '@app/platform';
import { AuditLogStore } from './audit/audit-log.store';
import { ApiKeyEntity } from './auth/api-key.entity';
import { ApiKeysRepository } from './auth/api-keys.repository';
import { CompaniesController } from './companies/companies.controller';
import { CreditsController } from './credits/credits.controller';
import { GatewayConfig } from './config';
import { EXPORT_LINKS, ExportsController } from './exports/exports.controller';
import { ApiErrorFilter } from './http/error-filter';
import { InputPipe } from './http/input.pipe';
import { GatewayPipeline } from './http/pipeline';
import { ClaimOwner } from './idempotency/claim-owner.store';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { LeadsController } from './leads/leads.controller';
import { DocsController } from './openapi/docs.controller';
import { RouteCatalog } from './openapi/route-catalog';
import { PipelinesController } from './pipelines/pipelines.controller';
import { PgCounterStore } from './rate-limit/pg-counter.store';
import { COUNTER_STORE, RateLimiter } from './rate-limit/rate-limiter';
import { RpcClient } from './rpc/rpc.client';
import { SequencesController, SuppressionsController } from './sequences/sequences.controller';
import { OptoutController } from './sequences/optout.controller';
import { UnsubscribeController } from './sequences/unsubscribe.controller';
import { SearchController } from './search/search.controller';
import { TasksController } from './tasks/tasks.controller';
import { EventsController } from './webhooks/events.controller';
import { EventStreams } from './webhooks/event-streams';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller';
import { MemberEntity } from './workspaces/member.entity';
import { WorkspaceEntity } from './workspaces/workspace.entity';
import { WorkspacesController } from './workspaces/workspaces.controller';
import { WorkspacesRepository } from './workspaces/workspaces.repository';
import { WorkspacesService } from './workspaces/workspaces.service';

@Module({})
export class GatewayModule {
  static register(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [PlatformModule.forService(config), TypeOrmModule.forFeature([WorkspaceEntity, MemberEntity, ApiKeyEntity])],
      controllers: [DocsController, LeadsController, CompaniesController, PipelinesController, TasksController, ExportsController, CreditsController, SequencesController, SuppressionsController, UnsubscribeController, OptoutController, SearchController, WebhookEndpointsController, EventsController, WorkspacesController],
      providers: [
        ApiKeysRepository,
        WorkspacesRepository,
        WorkspacesService,
        { provide: COUNTER_STORE, useClass: PgCounterStore },
        { provide: RateLimiter, useFactory: (store: PgCounterStore) => new RateLimiter(store), inject: [COUNTER_STORE] },
        // this process as the owner of its idempotency claims: its liveness lock and heartbeat
        { provide: ClaimOwner, useFactory: (c: GatewayConfig) => new ClaimOwner(c), inject: [SERVICE_CONFIG] },
        IdempotencyStore,
        RpcClient,
        EventStreams,
        GatewayPipeline,
        RouteCatalog,
        AuditLogStore,
        { provide: FILE_STORAGE, useFactory: () => createFileStorage() },
        { provide: EXPORT_LINKS, useFactory: () => loadExportLinkConfig() },
        { provide: APP_FILTER, useClass: ApiErrorFilter },
        // every @Body()/@Query() typed with a contracts DTO is validated against it, path ids checked
        { provide: APP_PIPE, useClass: InputPipe },
      ],
    };
  }
}
