import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlatformModule, ServiceClient, ServiceConfig } from '@app/platform';
import { CrmClient } from './crm.client';
import { EngineRepository } from './engine/engine.repository';
import { Sender } from './engine/sender';
import { EnrollmentsController } from './enrollments/enrollments.controller';
import { EnrollmentsRepository } from './enrollments/enrollments.repository';
import { EnrollmentsService } from './enrollments/enrollments.service';
import { LeadDeletedConsumer } from './enrollments/lead-deleted.consumer';
import { LeadUpdatedConsumer } from './enrollments/lead-updated.consumer';
import { ImapPoller } from './inbound/imap-poller';
import { ImapStateRepository } from './inbound/imap-state.repository';
import { InboundController } from './inbound/inbound.controller';
import { InboundRepository } from './inbound/inbound.repository';
import { InboundService } from './inbound/inbound.service';
import { MailboxEntity } from './mailboxes/mailbox.entity';
import { MailboxesController } from './mailboxes/mailboxes.controller';
import { MailboxesRepository } from './mailboxes/mailboxes.repository';
import { MailboxesService } from './mailboxes/mailboxes.service';
import { OptoutController } from './optout/optout.controller';
import { OptoutService } from './optout/optout.service';
import { SEQUENCES_CONFIG, SequencesConfig } from './sequences.config';
import { CountryRuleEntity } from './sequences/country-rule.entity';
import { SequenceStepEntity } from './sequences/sequence-step.entity';
import { SequenceEntity } from './sequences/sequence.entity';
import { SequencesController } from './sequences/sequences.controller';
import { SequencesRepository } from './sequences/sequences.repository';
import { SequencesService } from './sequences/sequences.service';
import { SuppressionEntity } from './suppressions/suppression.entity';
import { SuppressionsController } from './suppressions/suppressions.controller';
import { SuppressionsRepository } from './suppressions/suppressions.repository';
import { SuppressionsService } from './suppressions/suppressions.service';

@Module({})
export class SequencesModule {
  static register(config: ServiceConfig, sequences: SequencesConfig): DynamicModule {
    return {
      module: SequencesModule,
      imports: [
        PlatformModule.forService(config),
        TypeOrmModule.forFeature([MailboxEntity, SequenceEntity, SequenceStepEntity, SuppressionEntity, CountryRuleEntity]),
      ],
      controllers: [SequencesController, EnrollmentsController, SuppressionsController, MailboxesController, InboundController, OptoutController],
      providers: [
        { provide: SEQUENCES_CONFIG, useValue: sequences },
        ServiceClient, CrmClient,
        SequencesService, SequencesRepository,
        EnrollmentsService, EnrollmentsRepository, LeadDeletedConsumer, LeadUpdatedConsumer,
        SuppressionsService, SuppressionsRepository,
        MailboxesService, MailboxesRepository,
        InboundService, InboundRepository, ImapPoller, ImapStateRepository,
        Sender, EngineRepository,
        OptoutService,
      ],
    };
  }
}
