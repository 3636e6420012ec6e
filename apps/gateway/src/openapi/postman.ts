import { STATUS_CODES } from 'node:http';
import { RECORDED_EXAMPLES, RecordedExamples } from './examples';

/**
 * A Postman collection (format v2.1.0) generated from the OpenAPI document: one folder per tag,
 * one request per operation with its path, query and header parameters, the recorded request body
 * as the body, and the recorded answers as saved responses. The base URL and the API key are
 * collection variables (`baseUrl`, defaulting to the document's absolute server with its
 * variables' defaults, and `apiKey`); the collection authenticates with Bearer `{{apiKey}}`, and
 * the operations served without a key say so (auth `noauth`). The gateway serves it at
 * /api/v1/postman_collection.json, and `npm run openapi:update` writes it to
 * docs/postman_collection.json beside docs/openapi.json (tools/openapi/postman.ts).
 *
 * It runs as a whole (Postman's runner, Newman) with only `baseUrl` and `apiKey` set: each request
 * carries its recorded example's path, query and body, the requests run in the order they were
 * recorded (`order` in examples.json, each naming only objects that earlier answers hold; folders
 * follow it, and each request's test script names the next), and every id a later request uses is
 * a collection variable the answer holding it sets (`lead_id` from `POST /leads`, `st_id` from
 * `GET /pipelines`…), in the path and query as `{{lead_id}}`, in a body by a pre-request script
 * (the body shown is the recorded one). test/openapi/postman-newman.e2e-spec.ts runs it.
 */
export const POSTMAN_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

type Doc = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `#/components/parameters/X` and the like, resolved. */
function resolve(doc: Doc, node: any): any {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops += 1) {
    current = current.$ref.replace(/^#\//, '').split('/').reduce((at: any, part: string) => at?.[part], doc);
  }
  return current;
}

/** The document's first absolute server with its variables' defaults. */
export function defaultBaseUrl(doc: Doc): string {
  const server = (doc.servers ?? []).find((s: any) => /^[a-z{]/i.test(s.url) && !s.url.startsWith('/')) ?? doc.servers?.[0] ?? { url: '' };
  return String(server.url).replace(/\{([^}]+)\}/g, (_: string, name: string) => String(server.variables?.[name]?.default ?? `{${name}}`));
}

const firstExample = (media: any): unknown => {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values<any>(media.examples ?? {})[0];
  return first?.value;
};

/** An object id: a type prefix, then 24 characters (libs/platform/src/ids.ts). */
const ID = /^[a-z]+_[0-9A-Za-z]{24}$/;

/** Where a value sits in a JSON answer: keys and indexes. */
type JsonPath = (string | number)[];

/** Every id string of a JSON value, with where it sits (the first place of each). */
function idsIn(value: unknown, at: JsonPath = [], out = new Map<string, JsonPath>()): Map<string, JsonPath> {
  if (typeof value === 'string' && ID.test(value) && !out.has(value)) out.set(value, at);
  else if (Array.isArray(value)) value.forEach((item, i) => idsIn(item, [...at, i], out));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) idsIn(item, [...at, key], out);
  return out;
}

/** `/leads/{id}` matched against `/leads/lead_123`: `{ id: 'lead_123' }`. */
function pathValues(template: string, path: string): Record<string, string> {
  const names: string[] = [];
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`);
  const match = pattern.exec(path);
  return match ? Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1])])) : {};
}

/** A JavaScript expression reading `path` from `body`, undefined where it is missing. */
const accessor = (path: JsonPath) => `body${path.map((part) => `?.[${JSON.stringify(part)}]`).join('')}`;

/** A Postman URL object for `{{baseUrl}}/path` with the given query parameters. */
function urlOf(path: string, query: { key: string; value: string; disabled?: boolean; description?: string }[], pathVars: { key: string; value: string; description?: string }[]) {
  const postmanPath = path.replace(/\{([^}]+)\}/g, ':$1');
  const search = query.filter((q) => !q.disabled).map((q) => `${q.key}=${q.value}`).join('&');
  return {
    raw: `{{baseUrl}}${postmanPath}${search ? `?${search}` : ''}`,
    host: ['{{baseUrl}}'],
    path: postmanPath.split('/').filter(Boolean),
    ...(query.length ? { query } : {}),
    ...(pathVars.length ? { variable: pathVars } : {}),
  };
}

/** One operation of the document, with its recorded example. */
interface Entry {
  key: string;
  path: string;
  method: string;
  op: any;
  example?: RecordedExamples[string];
}

/** The collection of the document, its requests carrying the recorded examples. */
export function postmanCollection(doc: Doc, examples: RecordedExamples = RECORDED_EXAMPLES): Record<string, unknown> {
  const entries: Entry[] = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((method) => ops[method]).map((method) => {
      const key = `${method.toUpperCase()} ${path}`;
      return { key, path, method, op: ops[method], example: examples[key] };
    }),
  );
  // the recording's order; operations without an example (the documentation) after, as documented
  const rank = (e: Entry) => e.example?.order ?? Number.MAX_SAFE_INTEGER;
  const runOrder = entries.map((e, i) => ({ e, i })).sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i).map(({ e }) => e);

  // the ids each request names (path, query, body), and which earlier answer holds each
  const named = new Map<Entry, Set<string>>();
  for (const e of runOrder) {
    const [path, search = ''] = (e.example?.request.path ?? e.path).split('?');
    const ids = new Set<string>([...Object.values(pathValues(e.path, path)), ...new URLSearchParams(search).values()].filter((v) => ID.test(v)));
    for (const id of idsIn(e.example?.request.body).keys()) ids.add(id);
    named.set(e, ids);
  }
  // every id a request names gets a variable, set by the answers before it that hold the id: the
  // create that made it when there is one, else each of them, the last that has it winning (a list
  // shorter in this run than when recorded leaves it as it was)
  const variables = new Map<string, string>();
  const sets = new Map<Entry, { name: string; path: JsonPath }[]>();
  const counts = new Map<string, number>();
  const firstUse = new Map<string, number>();
  runOrder.forEach((e, i) => named.get(e)!.forEach((id) => firstUse.has(id) || firstUse.set(id, i)));
  for (const [id, until] of [...firstUse].sort(([, a], [, b]) => a - b)) {
    const holders = runOrder.slice(0, until).flatMap((e) => {
      const at = idsIn(e.example?.response.body).get(id);
      return at ? [{ e, at }] : [];
    });
    const created = holders.find(({ e, at }) => e.method === 'post' && at.length === 1 && at[0] === 'id');
    const producers = created ? [created] : holders;
    if (producers.length === 0) continue;
    const prefix = id.split('_')[0];
    const n = (counts.get(prefix) ?? 0) + 1;
    counts.set(prefix, n);
    const name = n === 1 ? `${prefix}_id` : `${prefix}_id_${n}`;
    variables.set(id, name);
    for (const { e, at } of producers) (sets.get(e) ?? sets.set(e, []).get(e)!).push({ name, path: at });
  }
  const asVariable = (value: string) => (variables.has(value) ? `{{${variables.get(value)}}}` : value);

  const items = new Map<Entry, Record<string, unknown>>();
  runOrder.forEach((e, i) => {
    const { op, method, path } = e;
    const [recordedPathOnly, search = ''] = (e.example?.request.path ?? path).split('?');
    const recordedQuery = new URLSearchParams(search);
    const params = (op.parameters ?? []).map((p: any) => resolve(doc, p));
    const query = params.filter((p: any) => p.in === 'query').map((p: any) => {
      const recorded = recordedQuery.get(p.name);
      return {
        key: p.name,
        value: recorded !== null ? asVariable(recorded) : p.schema?.default !== undefined ? String(p.schema.default) : '',
        disabled: recorded === null && !p.required,
        ...(p.description ? { description: p.description } : {}),
      };
    });
    // what the recorded request sent beyond the documented parameters (a signed link's expiry and signature)
    for (const [name, value] of recordedQuery) if (!query.some((q: any) => q.key === name)) query.push({ key: name, value, disabled: false });
    const values = pathValues(path, recordedPathOnly);
    const pathVars = params.filter((p: any) => p.in === 'path').map((p: any) => ({
      key: p.name, value: values[p.name] !== undefined ? asVariable(values[p.name]) : '', ...(p.description ? { description: p.description } : {}),
    }));
    const header = params.filter((p: any) => p.in === 'header').map((p: any) => ({
      key: p.name,
      value: p.name === 'Idempotency-Key' ? '{{$guid}}' : p.schema?.examples?.[0] !== undefined ? String(p.schema.examples[0]) : '',
      disabled: !p.required && p.name !== 'Idempotency-Key',
      ...(p.description ? { description: p.description } : {}),
    }));
    const content = op.requestBody?.content ?? {};
    const json = content['application/json'];
    const form = content['application/x-www-form-urlencoded'];
    let body: Record<string, unknown> | undefined;
    if (json) {
      header.push({ key: 'Content-Type', value: 'application/json', disabled: false });
      const example = firstExample(json);
      body = { mode: 'raw', raw: example === undefined ? '{}' : JSON.stringify(example, null, 2), options: { raw: { language: 'json' } } };
    } else if (form) {
      const example = (firstExample(form) ?? {}) as Record<string, unknown>;
      body = { mode: 'urlencoded', urlencoded: Object.entries(example).map(([key, value]) => ({ key, value: String(value) })) };
    }
    const url = urlOf(path, query, pathVars);
    const request = {
      method: method.toUpperCase(),
      header,
      ...(body ? { body } : {}),
      url,
      ...(op.description || op.summary ? { description: op.description ?? op.summary } : {}),
      ...(op.security?.length === 0 ? { auth: { type: 'noauth' } } : {}),
    };
    const response = Object.entries<any>(op.responses ?? {}).flatMap(([status, r]) => {
      const media = resolve(doc, r)?.content?.['application/json'];
      const recorded = Object.values<any>(media?.examples ?? {})[0];
      if (!recorded) return [];
      return [{
        name: recorded.summary ?? `${status}`,
        originalRequest: { method: request.method, header: [], url },
        status: STATUS_CODES[Number(status)] ?? '',
        code: Number(status),
        _postman_previewlanguage: 'json',
        header: [{ key: 'Content-Type', value: 'application/json' }],
        body: JSON.stringify(recorded.value, null, 2),
      }];
    });
    const inBody = [...idsIn(e.example?.request.body).keys()].filter((id) => variables.has(id));
    const prerequest = inBody.length === 0 || !json ? [] : [
      '// the recorded body, with the ids of the objects this run made',
      `const ids = ${JSON.stringify(Object.fromEntries(inBody.map((id) => [id, variables.get(id)])))};`,
      'let raw = pm.request.body.raw;',
      'for (const [recorded, name] of Object.entries(ids)) raw = raw.split(recorded).join(pm.collectionVariables.get(name));',
      'pm.request.body.update(raw);',
    ];
    const status = e.example?.response.status;
    const next = runOrder[i + 1];
    const test = [
      // a success, not necessarily the recorded status: a test key's answer differs from a live key's (reveals)
      `pm.test('answers with a success${status !== undefined ? ` (recorded: ${status})` : ''}', () => pm.expect(pm.response.code).to.be.within(200, 299));`,
      ...(sets.has(e) ? [
        '// ids later requests use',
        "const body = (pm.response.headers.get('Content-Type') || '').startsWith('application/json') ? pm.response.json() : undefined;",
        ...sets.get(e)!.map(({ name, path: at }) => `if (${accessor(at)} !== undefined) pm.collectionVariables.set('${name}', ${accessor(at)});`),
      ] : []),
      `pm.execution.setNextRequest(${next ? `'${next.op.operationId}'` : 'null'});`,
    ];
    const event = [
      ...(prerequest.length ? [{ listen: 'prerequest', script: { type: 'text/javascript', exec: prerequest } }] : []),
      { listen: 'test', script: { type: 'text/javascript', exec: test } },
    ];
    items.set(e, { id: op.operationId, name: `${op.summary ?? `${method.toUpperCase()} ${path}`}`, event, request, response });
  });

  // folders in the order their first request runs, requests in run order
  const folders = new Map<string, unknown[]>();
  for (const e of runOrder) {
    const tag = e.op.tags?.[0] ?? 'other';
    if (!folders.has(tag)) folders.set(tag, []);
    folders.get(tag)!.push(items.get(e));
  }
  const tagDescriptions = new Map<string, string>((doc.tags ?? []).map((t: any) => [t.name, t.description]));
  return {
    info: {
      name: doc.info.title,
      description:
        `${doc.info.description}\n\nGenerated from the OpenAPI document (version ${doc.info.version}). Set the \`apiKey\` variable to a key (\`svc_test_…\` for a start) and \`baseUrl\` to your gateway. ` +
        'Run as a whole, the requests go in the order they were recorded, each create setting the ids later requests use; a sequence comes from the operator ' +
        '(`admin sequence:create`), and the links that arrive only by email (unsubscribe, opt-out confirmation) and an export\'s signed download link are the recorded ones, which a new run does not hold.',
      version: doc.info.version,
      schema: POSTMAN_SCHEMA,
    },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: defaultBaseUrl(doc), type: 'string' },
      { key: 'apiKey', value: 'svc_test_…', type: 'string' },
      ...[...variables.values()].map((key) => ({ key, value: '', type: 'string' })),
    ],
    item: [...folders.entries()].map(([name, item]) => ({
      name, ...(tagDescriptions.get(name) ? { description: tagDescriptions.get(name) } : {}), item,
    })),
  };
}
