import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, ServiceClient, ServiceConfig } from '@app/platform';
import { CompaniesController } from './companies/companies.controller';
import { CompaniesRepository } from './companies/companies.repository';
import { emailBouncedConsumer } from './leads/email-bounced.consumer';
import { OrganizationsClient } from './companies/organizations.client';
import { CRM_CONFIG, CrmConfig, loadCrmConfig } from './crm.config';
import { ExportsModule } from './exports/exports.module';
import { LeadsBatchController } from './leads/leads-batch.controller';
import { LeadsController } from './leads/leads.controller';
import { LeadsRepository } from './leads/leads.repository';
import { LeadsService } from './leads/leads.service';
import { RevealLeadsController, RevealLeadsService } from './leads/reveal-leads.controller';
import { ListsController } from './lists/lists.controller';
import { ListsRepository } from './lists/lists.repository';
import { ListsService } from './lists/lists.service';
import { NotesController } from './notes/notes.controller';
import { NotesRepository } from './notes/notes.repository';
import { NotesService } from './notes/notes.service';
import { PipelinesController } from './pipelines/pipelines.controller';
import { PipelinesRepository } from './pipelines/pipelines.repository';
import { workspaceCreatedConsumer } from './pipelines/workspace-created.consumer';
import { TasksController } from './tasks/tasks.controller';
import { TasksRepository } from './tasks/tasks.repository';
import { TasksService } from './tasks/tasks.service';

@Module({})
export class CrmModule {
  static register(config: ServiceConfig, crm: CrmConfig = loadCrmConfig()): DynamicModule {
    return {
      module: CrmModule,
      imports: [PlatformModule.forService(config, { consumers: [workspaceCreatedConsumer, emailBouncedConsumer] }), ExportsModule.register(crm.exports)],
      controllers: [LeadsController, LeadsBatchController, CompaniesController, PipelinesController, TasksController, NotesController, ListsController, RevealLeadsController],
      providers: [{ provide: CRM_CONFIG, useValue: crm }, ServiceClient, LeadsService, LeadsRepository, CompaniesRepository, OrganizationsClient, PipelinesRepository, TasksService, TasksRepository, NotesService, NotesRepository, ListsService, ListsRepository, RevealLeadsService],
    };
  }
}
