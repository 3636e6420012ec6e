import { EVENT, EventEnvelope, WorkspaceCreatedData } from '@app/contracts';
import { ConsumerSpec } from '@app/platform';
import { provisionPipelines } from './pipelines.repository';

/** Every new workspace gets its default pipeline and the lens templates. */
export const workspaceCreatedConsumer: ConsumerSpec = {
  durable: 'crm',
  types: [EVENT.workspaceCreated],
  handle: async (event, tx) => {
    const workspaceId = (event as EventEnvelope<WorkspaceCreatedData>).data?.object?.workspace_id;
    if (typeof workspaceId === 'string' && workspaceId.startsWith('ws_')) await provisionPipelines(tx, workspaceId);
  },
};
