import { PoolClient } from 'pg';
import { EVENT, EventEnvelope, EventType, PLANS, Plan, WorkspaceCreatedData } from '@app/contracts';
import { ConsumerSpec, rootLogger } from '@app/platform';
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

/**
 * Opens the credit account of every new workspace. The platform takes its consumers when the
 * module is declared, before Nest makes the service; the service is bound when Nest makes the
 * providers, which is before any consumer starts (onApplicationBootstrap).
 */
export class WorkspaceCreatedConsumer implements ConsumerSpec {
  readonly durable = 'billing';
  readonly types: EventType[] = [EVENT.workspaceCreated];
  private credits?: CreditsService;

  bind(credits: CreditsService): this {
    this.credits = credits;
    return this;
  }

  async handle(event: EventEnvelope, tx: PoolClient): Promise<void> {
    if (!this.credits) throw new Error('billing: workspace.created handled before the credits service was bound');
    const opening = toOpeningBalance((event as EventEnvelope<WorkspaceCreatedData>).data?.object);
    if (!opening) {
      // Redelivery cannot repair a malformed event; acknowledge it so it does not block the stream.
      rootLogger().error({ event_id: event.id, type: event.type }, 'billing: malformed workspace.created dropped');
      return;
    }
    await this.credits.openAccount(tx, opening);
  }
}
