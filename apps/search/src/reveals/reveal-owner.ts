import { ClaimOwner, ClaimOwnerKind } from '@app/platform';

/** Search processes as owners of reveal claims: their heartbeats in search_instances, their liveness locks in this class. */
export const REVEAL_CLAIM_OWNERS: ClaimOwnerKind = { service: 'search', idPrefix: 'srch', table: 'search_instances', lockClass: 72201450 };

/** This search process as the owner of the reveal claims it takes (RevealsRepository.claim). */
export class RevealOwner extends ClaimOwner {}
