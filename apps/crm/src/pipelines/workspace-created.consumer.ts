import { EVENT, EventEnvelope, WorkspaceCreatedData } from '@app/contracts';
import { DurableConsumer, EventHandler, Tx } from '@app/platform';
import { provisionPipelines } from './pipelines.repository';

/** Every new workspace gets its default pipeline and the lens templates. */
@DurableConsumer({ durable: 'crm', types: [EVENT.workspaceCreated] })
export class WorkspaceCreatedConsumer implements EventHandler {
  async handle(event: EventEnvelope, tx: Tx): Promise<void> {
    const workspaceId = (event as EventEnvelope<WorkspaceCreatedData>).data?.object?.workspace_id;
    if (typeof workspaceId === 'string' && workspaceId.startsWith('ws_')) await provisionPipelines(tx, workspaceId);
  }
}
