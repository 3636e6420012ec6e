import { EVENT, EventEnvelope, PLANS, Plan, WorkspaceCreatedData } from '@app/contracts';
import { DurableConsumer, EventHandler, rootLogger, Tx } from '@app/platform';
import { CreditsService, OpeningBalance } from './credits.service';

const MAX_CREDITS = 2_147_483_647; // the int columns' ceiling

function isCredits(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_CREDITS;
}

/** The event comes from another service: check it rather than trust its type. */
function toOpeningBalance(data: WorkspaceCreatedData | undefined): OpeningBalance | undefined {
  if (!data || typeof data.workspace_id !== 'string' || data.workspace_id === '') return undefined;
  if (!PLANS.includes(data.plan as Plan) || !isCredits(data.plan_credits) || !isCredits(data.pack_credits)) return undefined;
  return { workspace_id: data.workspace_id, plan: data.plan as Plan, plan_credits: data.plan_credits, pack_credits: data.pack_credits };
}

/** Opens the credit account of every new workspace. */
@DurableConsumer({ durable: 'billing', types: [EVENT.workspaceCreated] })
export class WorkspaceCreatedConsumer implements EventHandler {
  constructor(private readonly credits: CreditsService) {}

  async handle(event: EventEnvelope, tx: Tx): Promise<void> {
    const opening = toOpeningBalance((event as EventEnvelope<WorkspaceCreatedData>).data?.object);
    if (!opening) {
      // Redelivery cannot repair a malformed event; acknowledge it so it does not block the stream.
      rootLogger().error({ event_id: event.id, type: event.type }, 'billing: malformed workspace.created dropped');
      return;
    }
    await this.credits.openAccount(tx, opening);
  }
}
