import { SUBJECTS } from '@app/contracts';
import { WarmUpCall, warmUpId } from '@app/platform';

/** webhooks' warm-up (libs/platform warm-up.ts): reads of the reserved workspace, which has no endpoints and no events. */
export const WEBHOOKS_WARM_UP: WarmUpCall[] = [
  { subject: SUBJECTS.webhooks.endpointsList, body: { limit: 25 } },
  { subject: SUBJECTS.webhooks.endpointsGet, body: { id: warmUpId('we_') } },
  { subject: SUBJECTS.webhooks.eventsList, body: { limit: 25 } },
  { subject: SUBJECTS.webhooks.eventsStream, body: { limit: 100 } },
];
