import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function files(dir: string, keep: (name: string) => boolean, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, keep, found);
    else if (keep(name)) found.push(relative(ROOT, path));
  }
  return found;
}

/**
 * The barrels `@app/contracts` and `@app/platform` load every service's stack (Nest, TypeORM,
 * fastify, class-validator, the OpenAPI metadata, the OpenTelemetry SDK: about 800 and 1,575
 * modules), which jest loads anew for each e2e file and `npm start` for its probes only
 * (docs/testing.md, "Where the time goes"). These files import the file that defines what they
 * use; a type alone may come from a barrel (`import type`: nothing is loaded for it).
 */
const BY_PATH = [
  ...files(join(ROOT, 'test'), (name) => name.endsWith('.e2e-spec.ts')),
  'test/harness.ts',
  ...files(join(ROOT, 'test', 'support'), (name) => name.endsWith('.ts') && !name.endsWith('spec.ts')),
  'tools/mesh/start.ts',
  'tools/mesh/processes.ts',
  'tools/mesh/demo-sandbox.ts',
];

const BARREL_VALUE_IMPORT = /^import (?!type )[^;]*? from '@app\/(contracts|platform)';/gm;

describe('what the e2e files, the harness and npm start import', () => {
  it('finds the files', () => {
    expect(BY_PATH.filter((file) => file.endsWith('.e2e-spec.ts')).length).toBeGreaterThan(50);
  });

  it('imports contracts and platform by path, not through their barrels', () => {
    const found = BY_PATH.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(BARREL_VALUE_IMPORT)].map((m) => `${file}: ${m[0].replace(/\s+/g, ' ')}`));
    expect(found).toEqual([]);
  });
});
