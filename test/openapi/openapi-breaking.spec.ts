import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { breakingChanges, latestRelease, RELEASES_DIR } from '../../tools/openapi/breaking';
import { COMMITTED_DOCUMENT } from '../../tools/openapi/update';

/**
 * No breaking change since the previous release: docs/openapi.json against the newest
 * docs/openapi/releases/<version>.json (a file, so the check needs no git tags).
 */
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('OpenAPI breaking-change check', () => {
  const current = load(COMMITTED_DOCUMENT);

  it('docs/openapi.json breaks no client of the previous release', () => {
    const { version, file } = latestRelease();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(breakingChanges(load(file), current)).toEqual([]);
  });

  it('the previous release is the newest file by version, not by name', () => {
    expect(latestRelease(RELEASES_DIR).file).toBe(join(RELEASES_DIR, `${latestRelease().version}.json`));
  });

  describe('finds each kind of breaking change, and passes additions', () => {
    const base = load(latestRelease().file);
    const change = (edit: (doc: any) => void) => {
      const doc = structuredClone(current);
      edit(doc);
      return breakingChanges(current, doc);
    };
    const schemas = (doc: any) => doc.components.schemas;

    it('a removed operation', () => {
      expect(change((d) => delete d.paths['/leads'].post)).toEqual(['POST /leads: operation removed']);
    });

    it('a removed response field (through $ref)', () => {
      expect(change((d) => delete schemas(d).Lead.properties.email)).toEqual(
        expect.arrayContaining(['POST /leads: response 201 field email removed', 'GET /leads/{id}: response 200 field email removed', 'GET /leads: response 200 field data[].email removed']),
      );
    });

    it('a newly required request field, and a newly required parameter', () => {
      const body = (d: any) => {
        const media = d.paths['/leads'].post.requestBody.content['application/json'];
        const ref = media.schema.$ref ?? media.schema.allOf?.[0]?.$ref;
        return schemas(d)[ref.split('/').pop()];
      };
      expect(change((d) => body(d).required = [...(body(d).required ?? []), 'email'])).toEqual(['POST /leads: request field email is newly required']);
      expect(change((d) => d.paths['/leads'].get.parameters.find((p: any) => p.name === 'limit').required = true)).toEqual(['GET /leads: parameter query limit is newly required']);
    });

    it('a narrowed enum a request may send', () => {
      const problems = change((d) => {
        const format = d.paths['/exports'].post.requestBody.content['application/json'];
        const schema = schemas(d)[(format.schema.$ref ?? format.schema.allOf[0].$ref).split('/').pop()];
        schema.properties.format.enum = schema.properties.format.enum.filter((v: string) => v !== 'json');
      });
      expect(problems).toEqual(['POST /exports: request field format no longer accepts "json"']);
    });

    it('additions are not breaking: a new operation, a new optional request field, a new response field, a new enum value', () => {
      expect(change((d) => {
        d.paths['/leads/{id}/notes'] = { get: structuredClone(d.paths['/leads'].get) };
        schemas(d).Lead.properties.nickname = { type: 'string' };
        d.paths['/leads'].get.parameters.push({ name: 'nickname', in: 'query', required: false, schema: { type: 'string' } });
      })).toEqual([]);
      expect(breakingChanges(base, base)).toEqual([]);
    });
  });
});
