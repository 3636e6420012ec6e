import { join } from 'node:path';
import { ROOT } from '../mesh/processes';

/**
 * docs/postman_collection.json: the Postman collection of docs/openapi.json, which
 * `npm run openapi:update` writes (the generator is the gateway's, which also serves it at
 * /api/v1/postman_collection.json: apps/gateway/src/openapi/postman.ts).
 */
export const POSTMAN_COLLECTION = join(ROOT, 'docs', 'postman_collection.json');
export { defaultBaseUrl, POSTMAN_SCHEMA, postmanCollection } from '../../apps/gateway/src/openapi/postman';
