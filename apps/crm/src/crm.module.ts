import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlatformModule, ServiceClient, ServiceConfig } from '@app/platform';
import { CompaniesController } from './companies/companies.controller';
import { CompaniesRepository } from './companies/companies.repository';
import { CompaniesService } from './companies/companies.service';
import { CompanyEntity } from './companies/company.entity';
import { EmailBouncedConsumer } from './leads/email-bounced.consumer';
import { OrganizationsClient } from './companies/organizations.client';
import { CRM_CONFIG, CrmConfig } from './crm.config';
import { ExportsModule } from './exports/exports.module';
import { TagEntity } from './leads/tag.entity';
import { LeadsBatchController } from './leads/leads-batch.controller';
import { LeadsController } from './leads/leads.controller';
import { LeadsRepository } from './leads/leads.repository';
import { LeadsService } from './leads/leads.service';
import { RevealLeadsController } from './leads/reveal-leads.controller';
import { RevealLeadsService } from './leads/reveal-leads.service';
import { ListMemberEntity } from './lists/list-member.entity';
import { ListEntity } from './lists/list.entity';
import { ListsController } from './lists/lists.controller';
import { ListsRepository } from './lists/lists.repository';
import { ListsService } from './lists/lists.service';
import { NoteEntity } from './notes/note.entity';
import { NotesController } from './notes/notes.controller';
import { NotesRepository } from './notes/notes.repository';
import { NotesService } from './notes/notes.service';
import { PipelineEntity } from './pipelines/pipeline.entity';
import { PipelinesController } from './pipelines/pipelines.controller';
import { PipelinesRepository } from './pipelines/pipelines.repository';
import { PipelinesService } from './pipelines/pipelines.service';
import { StageEntity } from './pipelines/stage.entity';
import { WorkspaceCreatedConsumer } from './pipelines/workspace-created.consumer';
import { TaskEntity } from './tasks/task.entity';
import { TasksController } from './tasks/tasks.controller';
import { TasksRepository } from './tasks/tasks.repository';
import { TasksService } from './tasks/tasks.service';

@Module({})
export class CrmModule {
  static register(config: ServiceConfig, crm: CrmConfig): DynamicModule {
    return {
      module: CrmModule,
      imports: [
        PlatformModule.forService(config),
        TypeOrmModule.forFeature([CompanyEntity, TagEntity, PipelineEntity, StageEntity, TaskEntity, NoteEntity, ListEntity, ListMemberEntity]),
        ExportsModule.register(crm.exports),
      ],
      controllers: [LeadsController, LeadsBatchController, CompaniesController, PipelinesController, TasksController, NotesController, ListsController, RevealLeadsController],
      providers: [
        { provide: CRM_CONFIG, useValue: crm }, ServiceClient, WorkspaceCreatedConsumer, EmailBouncedConsumer,
        LeadsService, LeadsRepository, CompaniesService, CompaniesRepository, OrganizationsClient, PipelinesService, PipelinesRepository,
        TasksService, TasksRepository, NotesService, NotesRepository, ListsService, ListsRepository, RevealLeadsService,
      ],
    };
  }
}
