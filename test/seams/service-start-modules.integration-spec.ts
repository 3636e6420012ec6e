import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@app/contracts/subjects';

const ROOT = join(__dirname, '..', '..');

/**
 * The packages loading a service's module (dist/, as `npm start` and the images run it) asks for,
 * as `require` sees the requests (an ESM package such as @nestjs/swagger is asked for through it
 * too: by our code, or by @nestjs/terminus's createRequire).
 */
function packagesRequiredBy(service: string): string[] {
  const script = `
    const Module = require('node:module');
    const asked = new Set();
    const load = Module._load;
    Module._load = function (request) {
      const m = /^(@[^/]+\\/[^/]+|[^./][^/]*)/.exec(request);
      if (m && !request.startsWith('node:')) asked.add(m[1]);
      return load.apply(this, arguments);
    };
    require(${JSON.stringify(join(ROOT, `dist/apps/${service}/src/${service}.module.js`))});
    console.log(JSON.stringify([...asked]));
  `;
  const out = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout.trim().split('\n').at(-1) as string);
}

/**
 * Five services never validate HTTP input nor write the API's document. @nestjs/swagger (the
 * contracts' @ApiProperty calls are applied when the gateway's document reads them:
 * libs/contracts/src/api-docs.ts; terminus's probes undocumented) and class-validator (the DTOs
 * are types only in the contracts barrel) cost each of their starts and restarts 0.1-0.15 s of CPU
 * (docs/testing.md, "A service's start"); sequences loads its mail parser and holiday calendar when
 * first used. The gateway loads swagger and class-validator: it validates and documents.
 */
describe("what loading a service's module loads", () => {
  const others = SERVICE_NAMES.filter((name) => name !== 'gateway');

  it.each(others)('%s: neither @nestjs/swagger nor class-validator', (service) => {
    const asked = packagesRequiredBy(service);
    expect(asked).toEqual(expect.arrayContaining(['@nestjs/core', 'typeorm']));
    expect(asked.filter((name) => ['@nestjs/swagger', 'class-validator', 'mailparser', 'date-holidays'].includes(name))).toEqual([]);
  });

  it('gateway: both (it validates input and writes the document)', () => {
    expect(packagesRequiredBy('gateway')).toEqual(expect.arrayContaining(['@nestjs/swagger', 'class-validator']));
  });
});
