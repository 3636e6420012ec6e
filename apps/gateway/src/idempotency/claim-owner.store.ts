import { CLAIM_OWNER_TIMING, ClaimOwner as ProcessClaimOwner, claimOwnerSessionName as sessionName, ClaimOwnerKind, ClaimOwnerTiming } from '@app/platform';
import { GatewayConfig } from '../config';

export { CLAIM_OWNER_TIMING } from '@app/platform';
export type { ClaimOwnerIdentity, ClaimOwnerTiming } from '@app/platform';

/** The advisory lock class of gateway processes' liveness locks (second key: hashtext of the process's id). */
export const CLAIM_OWNER_LOCK_CLASS = 72201449;

/** Gateway processes as owners of Idempotency-Key claims: their heartbeats in gateway_instances. */
export const GATEWAY_CLAIM_OWNERS: ClaimOwnerKind = { service: 'gateway', idPrefix: 'gw', table: 'gateway_instances', lockClass: CLAIM_OWNER_LOCK_CLASS };

/** The application_name of the connection that holds a gateway process's liveness lock. */
export const claimOwnerSessionName = (id: string): string => sessionName(GATEWAY_CLAIM_OWNERS.service, id);

/**
 * This gateway process as the owner of the Idempotency-Key claims it takes (docs/decisions.md,
 * "Idempotency claims of a gateway that died"): the platform's ClaimOwner on gateway_instances.
 */
export class ClaimOwner extends ProcessClaimOwner {
  constructor(config: Pick<GatewayConfig, 'databaseUrl'>, timing: ClaimOwnerTiming = CLAIM_OWNER_TIMING) {
    super(config.databaseUrl, GATEWAY_CLAIM_OWNERS, timing);
  }
}
