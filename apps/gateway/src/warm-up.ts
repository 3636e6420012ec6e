import { INestApplication } from '@nestjs/common';
import { SUBJECTS } from '@app/contracts';
import { WARM_UP_WORKSPACE, WarmUpCall, warmUpId } from '@app/platform';
import { hashApiKey } from './auth/api-key';
import { ApiKeysRepository } from './auth/api-keys.repository';

/**
 * The gateway's warm-up (libs/platform warm-up.ts): the key look-up every API request makes (of
 * a key no one holds: not found), and the operator's member look-up of the reserved workspace.
 * Its other per-request statements (the rate-limit counter, the idempotency claim) write, outside
 * a transaction, and are not asked.
 */
export const GATEWAY_WARM_UP: WarmUpCall[] = [
  { name: 'api key look-up', run: (app: INestApplication) => app.get(ApiKeysRepository).findByHash(hashApiKey(`svc_test_${warmUpId('')}`)) },
  { subject: SUBJECTS.gateway.membersContext, body: { workspace_id: WARM_UP_WORKSPACE } },
];
