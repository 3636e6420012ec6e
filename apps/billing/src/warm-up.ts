import { SUBJECTS } from '@app/contracts';
import { WarmUpCall, warmUpId } from '@app/platform';

/**
 * billing's warm-up (libs/platform warm-up.ts): the reserved workspace has no credit account, so
 * its balance is not found and its consume and refund find no account to change.
 */
export const BILLING_WARM_UP: WarmUpCall[] = [
  { subject: SUBJECTS.billing.creditsBalance, body: {} },
  { subject: SUBJECTS.billing.creditsConsume, body: { ref: warmUpId('ref_'), reason: 'warm-up', amount: 1 } },
  { subject: SUBJECTS.billing.creditsRefund, body: { ref: warmUpId('ref_'), reason: 'warm-up' } },
];
