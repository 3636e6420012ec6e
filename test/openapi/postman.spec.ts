import { readFileSync } from 'node:fs';
import { COMMITTED_DOCUMENT, documentText } from '../../tools/openapi/update';
import { defaultBaseUrl, POSTMAN_COLLECTION, POSTMAN_SCHEMA, postmanCollection } from '../../tools/openapi/postman';

/**
 * docs/postman_collection.json is generated from docs/openapi.json (`npm run openapi:update`
 * writes both): it must be what the generator makes of the committed document, and have the
 * shape of a Postman collection v2.1.0 (the parts of its schema an importer relies on).
 */
const doc = JSON.parse(readFileSync(COMMITTED_DOCUMENT, 'utf8'));
const committed = JSON.parse(readFileSync(POSTMAN_COLLECTION, 'utf8'));

const METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE', 'COPY', 'HEAD', 'OPTIONS', 'LINK', 'UNLINK', 'PURGE', 'LOCK', 'UNLOCK', 'PROPFIND', 'VIEW'];
const BODY_MODES = ['raw', 'urlencoded', 'formdata', 'file', 'graphql'];
const AUTH_TYPES = ['apikey', 'awsv4', 'basic', 'bearer', 'digest', 'edgegrid', 'hawk', 'noauth', 'oauth1', 'oauth2', 'ntlm'];

/** The v2.1.0 schema's rules for what the collection uses; the problems found, by JSON path. */
function shapeProblems(collection: any): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, at: string, what: string) => { if (!ok) problems.push(`${at}: ${what}`); };
  const keyValues = (list: unknown, at: string) => {
    need(Array.isArray(list), at, 'an array');
    for (const [i, kv] of ((list as any[]) ?? []).entries()) {
      need(typeof kv?.key === 'string' && (kv.value === undefined || typeof kv.value === 'string'), `${at}[${i}]`, 'a {key, value} of strings');
      if (kv?.disabled !== undefined) need(typeof kv.disabled === 'boolean', `${at}[${i}].disabled`, 'a boolean');
    }
  };
  const url = (u: any, at: string) => {
    need(typeof u?.raw === 'string' && u.raw.startsWith('{{baseUrl}}/'), `${at}.raw`, 'a string under {{baseUrl}}');
    need(Array.isArray(u?.path) && u.path.every((p: unknown) => typeof p === 'string'), `${at}.path`, 'an array of strings');
    if (u?.query) keyValues(u.query, `${at}.query`);
    if (u?.variable) {
      keyValues(u.variable, `${at}.variable`);
      for (const v of u.variable) need(u.path.includes(`:${v.key}`), `${at}.variable.${v.key}`, 'a :name segment of the path');
    }
  };
  const auth = (a: any, at: string) => need(AUTH_TYPES.includes(a?.type), `${at}.type`, 'a Postman auth type');
  need(collection.info?.schema === POSTMAN_SCHEMA, 'info.schema', POSTMAN_SCHEMA);
  need(typeof collection.info?.name === 'string' && collection.info.name.length > 0, 'info.name', 'a name');
  auth(collection.auth, 'auth');
  keyValues(collection.variable, 'variable');
  need(Array.isArray(collection.item), 'item', 'an array');
  const walk = (items: any[], at: string) => {
    for (const [i, item] of items.entries()) {
      const here = `${at}[${i}]`;
      if (Array.isArray(item.item)) { need(typeof item.name === 'string', `${here}.name`, 'a folder name'); walk(item.item, `${here}.item`); continue; }
      need(typeof item.name === 'string', `${here}.name`, 'a request name');
      const r = item.request;
      need(METHODS.includes(r?.method), `${here}.request.method`, 'an HTTP method');
      keyValues(r?.header, `${here}.request.header`);
      url(r?.url, `${here}.request.url`);
      if (r?.body) need(BODY_MODES.includes(r.body.mode), `${here}.request.body.mode`, 'a body mode');
      if (r?.body?.mode === 'raw') need(typeof r.body.raw === 'string', `${here}.request.body.raw`, 'a string');
      if (r?.body?.mode === 'urlencoded') keyValues(r.body.urlencoded, `${here}.request.body.urlencoded`);
      if (r?.auth) auth(r.auth, `${here}.request.auth`);
      need(Array.isArray(item.response), `${here}.response`, 'an array');
      for (const [j, res] of (item.response ?? []).entries()) {
        need(Number.isInteger(res.code) && typeof res.body === 'string' && typeof res.name === 'string', `${here}.response[${j}]`, 'a name, an integer code and a string body');
        keyValues(res.header, `${here}.response[${j}].header`);
      }
    }
  };
  walk(collection.item ?? [], 'item');
  return problems;
}

describe('docs/postman_collection.json, the Postman collection of the OpenAPI document', () => {
  it('is what tools/openapi/postman.ts makes of docs/openapi.json (else: npm run openapi:update)', () => {
    expect(readFileSync(POSTMAN_COLLECTION, 'utf8')).toBe(documentText(postmanCollection(doc)));
  });

  it('has the shape of a Postman collection v2.1.0', () => {
    expect(shapeProblems(committed)).toEqual([]);
  });

  it('the shape check is live: a broken collection fails it', () => {
    const broken = structuredClone(committed);
    broken.info.schema = 'https://schema.getpostman.com/json/collection/v1.0.0/collection.json';
    broken.item[0].item[0].request.method = 'FETCH';
    delete broken.item[0].item[0].request.url.raw;
    expect(shapeProblems(broken)).toEqual([
      expect.stringMatching(/^info\.schema/), expect.stringMatching(/^item\[0\]\.item\[0\]\.request\.method/), expect.stringMatching(/^item\[0\]\.item\[0\]\.request\.url\.raw/),
    ]);
  });

  it('one request per operation of the document, in a folder per tag, with its recorded examples', () => {
    const requests = committed.item.flatMap((folder: any) => folder.item.map((item: any) => ({ folder: folder.name, ...item })));
    const operations = Object.entries<any>(doc.paths).flatMap(([path, ops]) => Object.entries<any>(ops).map(([method, op]) => ({ path, method, op })));
    expect(requests).toHaveLength(operations.length);
    for (const { path, method, op } of operations) {
      const raw = `{{baseUrl}}${path.replace(/\{([^}]+)\}/g, ':$1')}`;
      const found = requests.filter((r: any) => r.request.method === method.toUpperCase() && r.request.url.raw.split('?')[0] === raw);
      expect({ op: `${method} ${path}`, found: found.length }).toEqual({ op: `${method} ${path}`, found: 1 });
      expect(found[0].folder).toBe(op.tags[0]);
      if (op.security?.length === 0) expect(found[0].request.auth).toEqual({ type: 'noauth' });
      if (method === 'post' && op.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey')) {
        expect(found[0].request.header).toContainEqual(expect.objectContaining({ key: 'Idempotency-Key', value: '{{$guid}}', disabled: false }));
      }
      const recorded = Object.values<any>(op.requestBody?.content?.['application/json']?.examples ?? {})[0];
      if (recorded) expect(JSON.parse(found[0].request.body.raw)).toEqual(recorded.value);
    }
    expect(committed.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] });
    expect(committed.variable).toContainEqual({ key: 'baseUrl', value: defaultBaseUrl(doc), type: 'string' });
    expect(defaultBaseUrl(doc)).toBe('http://127.0.0.1:3000/api/v1');
    expect(requests.find((r: any) => r.request.url.raw === '{{baseUrl}}/leads' && r.request.method === 'POST').response[0]).toMatchObject({ code: 201, status: 'Created' });
  });
});
