import { EVENT, EventEnvelope, WorkspaceCreatedData } from '@app/contracts';
import { DurableConsumer, EventHandler, rootLogger, Tx } from '@app/platform';
import { CreditsService, toOpeningBalance } from './credits.service';

/**
 * Opens the credit account of every new workspace (when the gateway's billing.accounts.open did not
 * already: then nothing is granted again).
 */
@DurableConsumer({ durable: 'billing', types: [EVENT.workspaceCreated] })
export class WorkspaceCreatedConsumer implements EventHandler {
  constructor(private readonly credits: CreditsService) {}

  async handle(event: EventEnvelope, tx: Tx): Promise<void> {
    // The event comes from another service: check it rather than trust its type.
    const opening = toOpeningBalance((event as EventEnvelope<WorkspaceCreatedData>).data?.object);
    if (!opening) {
      // Redelivery cannot repair a malformed event; acknowledge it so it does not block the stream.
      rootLogger().error({ event_id: event.id, type: event.type }, 'billing: malformed workspace.created dropped');
      return;
    }
    await this.credits.openAccount(tx, opening);
  }
}
