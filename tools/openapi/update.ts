import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadGatewayConfig } from '../../apps/gateway/src/config';
import { GatewayModule } from '../../apps/gateway/src/gateway.module';
import { buildOpenApiDocument } from '../../apps/gateway/src/openapi/generator';
import { ROOT } from '../mesh/processes';
import { CLIENT_TYPES, clientTypes } from './client-types';
import { POSTMAN_COLLECTION, postmanCollection } from './postman';

/**
 * `npm run openapi:update`: writes docs/openapi.json, the document the gateway serves at
 * /api/v1/openapi.json with its default configuration (the same controllers, the same
 * generator), for integrators to diff. test/openapi/openapi-committed.e2e-spec.ts fails when
 * the served document and the committed one differ. It also writes docs/postman_collection.json,
 * the Postman collection generated from that document (tools/openapi/postman.ts;
 * test/openapi/postman.spec.ts fails when the two are out of step), and packages/client's types
 * (tools/openapi/client-types.ts).
 */
export const COMMITTED_DOCUMENT = join(ROOT, 'docs', 'openapi.json');

export function servedDocument(): Record<string, unknown> {
  const config = loadGatewayConfig({ APP: 'gateway' });
  const controllers = (GatewayModule.register(config).controllers ?? []) as Function[];
  return buildOpenApiDocument(controllers, { docsUrl: config.docsUrl });
}

export const documentText = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;

if (require.main === module) {
  const doc = servedDocument();
  writeFileSync(COMMITTED_DOCUMENT, documentText(doc));
  process.stdout.write(`wrote ${COMMITTED_DOCUMENT}\n`);
  // from the document as committed (parsed back), as the sync test rebuilds it
  writeFileSync(POSTMAN_COLLECTION, documentText(postmanCollection(JSON.parse(documentText(doc)))));
  process.stdout.write(`wrote ${POSTMAN_COLLECTION}\n`);
  void clientTypes(JSON.parse(documentText(doc))).then((types) => {
    writeFileSync(CLIENT_TYPES, types);
    process.stdout.write(`wrote ${CLIENT_TYPES}\n`);
  });
}
