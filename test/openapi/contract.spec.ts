import { existsSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { ROOT } from '../../tools/mesh/processes';

/**
 * The contract lives in the repository (docs/spec/lead-intelligence-api.md, the API
 * specification this code implements, copied in verbatim) and the README points there: every
 * relative link of the README names a file of the repository, none outside it.
 */
describe('the contract and the README links', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));

  it('the README links the contract, the OpenAPI document, the changelog, the typed client, the Postman collection and the quickstart, all in the repository', () => {
    expect(links).toEqual(expect.arrayContaining([
      'docs/spec/lead-intelligence-api.md', 'docs/openapi.json', 'CHANGELOG.md', 'packages/client', 'docs/postman_collection.json', 'docs/quickstart.md',
    ]));
    for (const link of links) {
      const target = normalize(join(ROOT, link));
      expect({ link, inside: target.startsWith(`${ROOT}/`), exists: existsSync(target) }).toEqual({ link, inside: true, exists: true });
    }
  });

  it('the contract is the API specification', () => {
    const spec = readFileSync(join(ROOT, 'docs/spec/lead-intelligence-api.md'), 'utf8');
    expect(spec).toMatch(/^# /);
    expect(spec).toContain('svc_live_');
    expect(spec).toContain('Service-Version');
  });
});
