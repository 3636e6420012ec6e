import { SUBJECTS } from '@app/contracts';
import { WarmUpCall, warmUpId } from '@app/platform';

/** sequences' warm-up (libs/platform warm-up.ts): reads of the reserved workspace, an enrollment into a sequence that does not exist. */
export const SEQUENCES_WARM_UP: WarmUpCall[] = [
  { subject: SUBJECTS.sequences.list, body: { limit: 25 } },
  { subject: SUBJECTS.sequences.get, body: { id: warmUpId('seq_') } },
  { subject: SUBJECTS.sequences.enrollmentsCreate, body: { sequence_id: warmUpId('seq_'), lead_ids: [warmUpId('lead_')] } },
  { subject: SUBJECTS.sequences.suppressionsList, body: { limit: 25 } },
];
