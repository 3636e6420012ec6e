import { RECORDED_EXAMPLES, RecordedExamples } from './examples';

/**
 * Per-operation code samples (`x-codeSamples`, which the reference page renders beside each
 * operation): the operation's recorded request (apps/gateway/src/openapi/examples.json) as a curl
 * command and as a call of the TypeScript client (packages/client). Both read the key from
 * `$LIM_API_KEY` and name the local mesh `npm start` runs, so a sample runs as printed there;
 * test/openapi/code-samples.e2e-spec.ts runs every curl sample against a mesh.
 */

/** The base URL the samples name: the gateway `npm start` runs. */
export const SAMPLE_BASE_URL = 'http://127.0.0.1:3000/api/v1';
/** The environment variable the samples read the API key from (the `lim` CLI reads it too). */
export const SAMPLE_KEY_VARIABLE = 'LIM_API_KEY';

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

type Operation = Record<string, any>;

/** A shell word in single quotes: nothing inside is expanded. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

const isForm = (op: Operation) => {
  const content = op.requestBody?.content ?? {};
  return !content['application/json'] && Boolean(content['application/x-www-form-urlencoded']);
};

/** The success response's media types: JSON, or a page or file the client reads as text. */
const answersJson = (op: Operation) => {
  const success = Object.entries<any>(op.responses ?? {}).find(([status]) => Number(status) < 300)?.[1];
  const types = Object.keys(success?.content ?? {});
  return types.length === 0 || types.includes('application/json');
};

export function curlSample(method: string, op: Operation, requestPath: string, body: unknown): string {
  const lines = [`curl${method === 'GET' ? '' : ` -X ${method}`} ${quoted(`${SAMPLE_BASE_URL}${requestPath}`)}`];
  if (op.security?.length !== 0) lines.push(`-H "Authorization: Bearer $${SAMPLE_KEY_VARIABLE}"`);
  if (op.requestBody) {
    if (isForm(op)) {
      const fields = Object.entries((body ?? {}) as Record<string, unknown>);
      if (fields.length === 0) lines.push(`-d ''`);
      for (const [name, value] of fields) lines.push(`--data-urlencode ${quoted(`${name}=${String(value)}`)}`);
    } else {
      lines.push('-H "Content-Type: application/json"', `-d ${quoted(JSON.stringify(body ?? {}))}`);
    }
  }
  return lines.join(' \\\n  ');
}

/** `/leads/{id}` matched against `/leads/lead_123`: `{ id: 'lead_123' }`. */
function pathValues(template: string, path: string): Record<string, string> {
  const names: string[] = [];
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`);
  const match = pattern.exec(path);
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? `${name}_…`)]));
}

/** A query value as the client's types take it: a number for an integer or number parameter. */
function queryValue(op: Operation, name: string, value: string): unknown {
  const parameter = (op.parameters ?? []).find((p: any) => p.in === 'query' && p.name === name);
  const type = parameter?.schema?.type;
  return (type === 'integer' || type === 'number') && value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JSON value as TypeScript source, as one writes it (bare keys, single quotes), indented to sit at `indent`. */
function literal(value: unknown, indent: string): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((item) => literal(item, inner))
    : Object.entries(value).map(([key, item]) => `${IDENTIFIER.test(key) ? key : literal(key, inner)}: ${literal(item, inner)}`);
  if (items.length === 0) return Array.isArray(value) ? '[]' : '{}';
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const flat = Array.isArray(value) ? `[${items.join(', ')}]` : `{ ${items.join(', ')} }`;
  return flat.length <= 80 && !flat.includes('\n') ? flat : `${open}\n${items.map((item) => `${inner}${item}`).join(',\n')},\n${indent}${close}`;
}

export function typescriptSample(method: string, template: string, op: Operation, requestPath: string, body: unknown): string {
  const [path, search = ''] = requestPath.split('?');
  const params: Record<string, unknown> = {};
  const values = pathValues(template, path);
  if (Object.keys(values).length > 0) params.path = values;
  const query = [...new URLSearchParams(search)];
  const documented = new Set((op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name));
  if (query.some(([name]) => !documented.has(name))) {
    // a signed link (its signature in the query, not a parameter of the document): fetched as it is
    return `const response = await fetch('${SAMPLE_BASE_URL}${requestPath}');\nconst body = await response.text();`;
  }
  if (query.length > 0) params.query = Object.fromEntries(query.map(([name, value]) => [name, queryValue(op, name, value)]));
  const options: string[] = [];
  if (Object.keys(params).length > 0) options.push(`params: ${literal(params, '  ')}`);
  if (op.requestBody) {
    options.push(`body: ${literal(body ?? {}, '  ')}`);
    if (isForm(op)) {
      options.push("headers: { 'Content-Type': 'application/x-www-form-urlencoded' }");
      options.push('bodySerializer: (fields) => new URLSearchParams(fields as Record<string, string>).toString()');
    }
  }
  if (!answersJson(op)) options.push("parseAs: 'text'");
  const call = `client.api.${method}('${template}'${options.length > 0 ? `, {\n  ${options.join(',\n  ')},\n}` : ''})`;
  return [
    "import { LeadIntelClient } from '@lead-intelligence/client';",
    '',
    `const client = new LeadIntelClient({ apiKey: process.env.${SAMPLE_KEY_VARIABLE}!, baseUrl: '${SAMPLE_BASE_URL}' });`,
    '',
    `const { data, error } = await ${call};`,
  ].join('\n');
}

/**
 * Puts `x-codeSamples` on every operation: its recorded request where there is one, else the
 * operation's path as documented (the documentation routes, which take no parameters).
 */
export function addCodeSamples(paths: Record<string, Record<string, any>>, examples: RecordedExamples = RECORDED_EXAMPLES): void {
  for (const [template, operations] of Object.entries(paths)) {
    for (const [lower, op] of Object.entries(operations)) {
      const method = lower.toUpperCase();
      const example = examples[`${method} ${template}`];
      const requestPath = example?.request.path ?? template;
      const body = example?.request.body;
      op['x-codeSamples'] = [
        { lang: 'Shell', label: 'curl', source: curlSample(method, op, requestPath, body) },
        { lang: 'TypeScript', label: 'TypeScript client', source: typescriptSample(method, template, op, requestPath, body) },
      ] satisfies CodeSample[];
    }
  }
}
