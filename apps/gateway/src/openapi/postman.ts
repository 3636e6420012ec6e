import { STATUS_CODES } from 'node:http';

/**
 * A Postman collection (format v2.1.0) generated from the OpenAPI document: one folder per tag,
 * one request per operation with its path, query and header parameters, the recorded request body
 * as the body, and the recorded answers as saved responses. The base URL and the API key are
 * collection variables (`baseUrl`, defaulting to the document's absolute server with its
 * variables' defaults, and `apiKey`); the collection authenticates with Bearer `{{apiKey}}`, and
 * the operations served without a key say so (auth `noauth`). The gateway serves it at
 * /api/v1/postman_collection.json, and `npm run openapi:update` writes it to
 * docs/postman_collection.json beside docs/openapi.json (tools/openapi/postman.ts).
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

/** The collection of the document. */
export function postmanCollection(doc: Doc): Record<string, unknown> {
  const folders = new Map<string, unknown[]>();
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      const op = ops[method];
      if (!op) continue;
      const params = (op.parameters ?? []).map((p: any) => resolve(doc, p));
      const query = params.filter((p: any) => p.in === 'query').map((p: any) => ({
        key: p.name, value: p.schema?.default !== undefined ? String(p.schema.default) : '', disabled: !p.required,
        ...(p.description ? { description: p.description } : {}),
      }));
      const pathVars = params.filter((p: any) => p.in === 'path').map((p: any) => ({ key: p.name, value: '', ...(p.description ? { description: p.description } : {}) }));
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
      const tag = op.tags?.[0] ?? 'other';
      if (!folders.has(tag)) folders.set(tag, []);
      folders.get(tag)!.push({ name: `${op.summary ?? `${method.toUpperCase()} ${path}`}`, request, response });
    }
  }
  const tagDescriptions = new Map<string, string>((doc.tags ?? []).map((t: any) => [t.name, t.description]));
  return {
    info: {
      name: doc.info.title,
      description: `${doc.info.description}\n\nGenerated from the OpenAPI document (version ${doc.info.version}). Set the \`apiKey\` variable to a key (\`svc_test_…\` for a start) and \`baseUrl\` to your gateway.`,
      version: doc.info.version,
      schema: POSTMAN_SCHEMA,
    },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: defaultBaseUrl(doc), type: 'string' },
      { key: 'apiKey', value: 'svc_test_…', type: 'string' },
    ],
    item: [...folders.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, item]) => ({
      name, ...(tagDescriptions.get(name) ? { description: tagDescriptions.get(name) } : {}), item,
    })),
  };
}
