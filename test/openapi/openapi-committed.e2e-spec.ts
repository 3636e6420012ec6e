import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { POSTMAN_COLLECTION } from '../../tools/openapi/postman';
import { COMMITTED_DOCUMENT, documentText, servedDocument } from '../../tools/openapi/update';
import { meshHookTimeoutMs, TestMesh } from '../harness';

/**
 * docs/openapi.json is the document the gateway serves: integrators diff it between releases
 * and generate clients from it (packages/client). A change to the API that does not
 * update it fails here, with the one command that does.
 */

/** The JSON pointers where two documents differ (at most `limit`). */
function differences(a: unknown, b: unknown, at = '', out: string[] = [], limit = 15): string[] {
  if (out.length >= limit || isDeepStrictEqual(a, b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences((a as any)[k], (b as any)[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, limit);
  } else out.push(at || '/');
  return out;
}

describe('docs/openapi.json, the committed OpenAPI document', () => {
  let mesh: TestMesh;
  beforeAll(async () => {
    // the committed document is the one of the default configuration: its error links name the
    // API's default public URL, whatever port this test's gateway listens on
    mesh = await TestMesh.start(['gateway'], { PUBLIC_API_URL: 'http://127.0.0.1:3000/api/v1' });
  }, meshHookTimeoutMs(1));
  afterAll(() => mesh?.close());

  it('is the document the running gateway serves (else: npm run openapi:update)', async () => {
    const served = await (await fetch(`${mesh.baseUrl}/openapi.json`)).json();
    const committed = JSON.parse(readFileSync(COMMITTED_DOCUMENT, 'utf8'));
    const differ = differences(committed, served);
    if (differ.length) throw new Error(`docs/openapi.json differs from the served document at ${differ.join(', ')}: run npm run openapi:update`);
    // and the update script writes exactly this file
    expect(readFileSync(COMMITTED_DOCUMENT, 'utf8')).toBe(documentText(servedDocument()));
  });

  it('the gateway serves the committed Postman collection, without a key', async () => {
    const res = await fetch(`${mesh.baseUrl}/postman_collection.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe(readFileSync(POSTMAN_COLLECTION, 'utf8'));
  });

  it('the comparison does fail on a change', () => {
    const doc = servedDocument() as any;
    const changed = structuredClone(doc);
    delete changed.paths['/leads'].post;
    expect(differences(doc, changed)).toEqual(['/paths/~1leads/post']);
  });
});
