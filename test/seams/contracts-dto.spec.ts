import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DTO_DIR = join(ROOT, 'libs/contracts/src/dto');

function files(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, found);
    else if (name.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** The classes of dto/: the request bodies and queries the gateway validates with their class-validator rules. */
const DTO_CLASSES = readdirSync(DTO_DIR)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
  .flatMap((name) => [...readFileSync(join(DTO_DIR, name), 'utf8').matchAll(/^export (?:abstract )?class (\w+)/gm)].map((m) => m[1]));

const BARREL_IMPORT = /^import (type )?\{([^}]*)\} from '@app\/contracts';/gm;

/**
 * `@app/contracts` exports the DTO classes as types only (index.ts: a service's start then does not
 * load class-validator). A gateway file that took a DTO class from it would compile and pass its
 * typecheck, yet the handler's decorator metadata would name `Object` for the parameter, and the
 * gateway's input pipe validates only a class with rules (input.pipe.ts, isContractDto): the body
 * would reach the service unchecked. So the gateway takes every DTO class from '@app/contracts/dto'.
 */
describe('the DTO classes the gateway validates with', () => {
  it('finds them', () => {
    expect(DTO_CLASSES).toEqual(expect.arrayContaining(['CreateLeadDto', 'ListLeadsQueryDto', 'CreateWebhookEndpointDto', 'PageQueryDto']));
  });

  it("come from '@app/contracts/dto' in every gateway file, never from the barrel (types only there)", () => {
    const found = files(join(ROOT, 'apps/gateway/src')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(BARREL_IMPORT)]
        .flatMap((m) => m[2].split(',').map((name) => name.trim().replace(/^type /, '').split(' as ')[0]))
        .filter((name) => DTO_CLASSES.includes(name))
        .map((name) => `${relative(ROOT, file)}: ${name}`),
    );
    expect(found).toEqual([]);
  });
});
