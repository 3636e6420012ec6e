import { DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, ServiceConfig } from '@app/platform';
import { CrmClient } from './crm-client';
import { Sender } from './engine/sender';
import { ImapPoller } from './inbound/imap-poller';
import { InboundService } from './inbound/inbound.service';
import { leadDeletedConsumer } from './lead-deleted.consumer';
import { leadUpdatedConsumer } from './lead-updated.consumer';
import { MailboxesRepository } from './mailboxes/mailboxes.repository';
import { OptoutService } from './optout/optout.service';
import { SequencesController } from './sequences.controller';
import { loadSequencesConfig, SEQUENCES_CONFIG } from './sequences.config';
import { SequencesService } from './sequences/sequences.service';
import { SuppressionsService } from './suppressions/suppressions.service';

@Module({})
export class SequencesModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: SequencesModule,
      imports: [PlatformModule.forService(config, { consumers: [leadDeletedConsumer, leadUpdatedConsumer] })],
      controllers: [SequencesController],
      providers: [
        { provide: SEQUENCES_CONFIG, useValue: loadSequencesConfig() },
        CrmClient, MailboxesRepository, SuppressionsService, SequencesService, InboundService, ImapPoller, Sender, OptoutService,
      ],
    };
  }
}
