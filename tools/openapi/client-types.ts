import { join } from 'node:path';
import { ROOT } from '../mesh/processes';

/**
 * The TypeScript types of packages/client (its `paths`, `components` and `webhooks`), generated
 * from the OpenAPI document by openapi-typescript. `npm run openapi:update` writes them to
 * packages/client/src/api.d.ts; test/openapi/client-types.integration-spec.ts fails when they are out of
 * step with docs/openapi.json.
 */
export const CLIENT_TYPES = join(ROOT, 'packages', 'client', 'src', 'api.d.ts');

const HEADER = '/**\n * Generated from docs/openapi.json by openapi-typescript (npm run openapi:update). Do not edit.\n */\n\n';

export async function clientTypes(doc: Record<string, unknown>): Promise<string> {
  // the CommonJS build: its `default` is the generator, `astToString` prints what it returns
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require('openapi-typescript') as { default: (source: unknown) => Promise<unknown[]>; astToString: (ast: unknown) => string };
  return `${HEADER}${lib.astToString(await lib.default(structuredClone(doc)))}`;
}

/** A child process's answer (jest's module loader cannot load openapi-typescript's ES modules; node can). */
if (require.main === module) {
  const { readFileSync } = require('node:fs') as typeof import('node:fs');
  void clientTypes(JSON.parse(readFileSync(process.argv[2] ?? join(ROOT, 'docs', 'openapi.json'), 'utf8'))).then((types) => process.stdout.write(types));
}
