import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../mesh/processes';

/**
 * Breaking changes between two OpenAPI documents, as a client written against the older one
 * would meet them: an operation removed; a field of a response removed; a request field or
 * parameter newly required; an enum a request may send narrowed. Additions (operations,
 * optional request fields, response fields, enum values) are not breaking.
 *
 *   npm run openapi:breaking    # docs/openapi.json against the newest docs/openapi/releases/<version>.json
 *
 * At a release, copy docs/openapi.json to docs/openapi/releases/<version>.json: the next release
 * is checked against it (a file, so the check works on any clone, tags or not).
 */

type Doc = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export const RELEASES_DIR = join(ROOT, 'docs', 'openapi', 'releases');

const semver = (name: string) => name.replace(/\.json$/, '').split('.').map(Number);

/** The newest release's document file under docs/openapi/releases (by semantic version). */
export function latestRelease(dir = RELEASES_DIR): { version: string; file: string } {
  const files = readdirSync(dir).filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f));
  if (!files.length) throw new Error(`${dir}: no <version>.json`);
  files.sort((a, b) => {
    const [x, y] = [semver(a), semver(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  const file = files[files.length - 1];
  return { version: file.replace(/\.json$/, ''), file: join(dir, file) };
}

function resolve(doc: Doc, node: any): any {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops += 1) {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: any, part: string) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

interface Field {
  /** Required here and in every enclosing object. */
  required: boolean;
  enum?: unknown[];
}

/** Every field a schema describes, by path (`a.b`, `items[]`), with required-ness and enums. */
function fieldsOf(doc: Doc, schema: any, prefix = '', required = true, seen: string[] = [], out = new Map<string, Field>()): Map<string, Field> {
  if (!schema || typeof schema !== 'object') return out;
  if (schema.$ref) {
    if (seen.includes(schema.$ref)) return out;
    return fieldsOf(doc, resolve(doc, schema), prefix, required, [...seen, schema.$ref], out);
  }
  const values = schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (values && prefix) {
    const known = out.get(prefix);
    out.set(prefix, { required: known?.required ?? required, enum: [...new Set([...(known?.enum ?? []), ...values])] });
  }
  for (const branch of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    fieldsOf(doc, branch, prefix, required && Boolean(schema.allOf?.includes(branch)), seen, out);
  }
  const requiredNames = new Set<string>(schema.required ?? []);
  for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    const here = required && requiredNames.has(name);
    const known = out.get(path);
    out.set(path, { required: (known?.required ?? false) || here, ...(known?.enum ? { enum: known.enum } : {}) });
    fieldsOf(doc, sub, path, here, seen, out);
  }
  if (schema.items) fieldsOf(doc, schema.items, `${prefix}[]`, false, seen, out);
  return out;
}

function operations(doc: Doc): Map<string, any> {
  const ops = new Map<string, any>();
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) if (item[method]) ops.set(`${method.toUpperCase()} ${path}`, { ...item[method], parameters: [...(item.parameters ?? []), ...(item[method].parameters ?? [])] });
  }
  return ops;
}

function parameters(doc: Doc, op: any): Map<string, any> {
  const found = new Map<string, any>();
  for (const p of op.parameters ?? []) {
    const param = resolve(doc, p);
    if (param?.name) found.set(`${param.in} ${param.name}`, param);
  }
  return found;
}

const enumNarrowed = (before?: unknown[], after?: unknown[]): unknown[] =>
  before && after ? before.filter((v) => !after.some((w) => JSON.stringify(w) === JSON.stringify(v))) : [];

/** The breaking changes from `before` to `after`, one sentence each; empty when there are none. */
export function breakingChanges(before: Doc, after: Doc): string[] {
  const problems: string[] = [];
  const afterOps = operations(after);
  for (const [key, old] of operations(before)) {
    const now = afterOps.get(key);
    if (!now) {
      problems.push(`${key}: operation removed`);
      continue;
    }
    // Parameters: newly required, or fewer values accepted.
    const oldParams = parameters(before, old);
    for (const [name, param] of parameters(after, now)) {
      const was = oldParams.get(name);
      if (param.required && !was?.required) problems.push(`${key}: parameter ${name} is newly required`);
      const removed = enumNarrowed(resolve(before, was?.schema)?.enum, resolve(after, param.schema)?.enum);
      if (removed.length) problems.push(`${key}: parameter ${name} no longer accepts ${removed.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    // Request bodies, per media type.
    const oldBody = resolve(before, old.requestBody);
    const newBody = resolve(after, now.requestBody);
    if (newBody?.required && oldBody && !oldBody.required) problems.push(`${key}: the request body is newly required`);
    for (const [type, media] of Object.entries<any>(newBody?.content ?? {})) {
      const was = oldBody?.content?.[type];
      if (!was) continue;
      const oldFields = fieldsOf(before, was.schema);
      for (const [path, field] of fieldsOf(after, media.schema)) {
        const prior = oldFields.get(path);
        if (field.required && !prior?.required) problems.push(`${key}: request field ${path} is newly required`);
        const removed = enumNarrowed(prior?.enum, field.enum);
        if (removed.length) problems.push(`${key}: request field ${path} no longer accepts ${removed.map((v) => JSON.stringify(v)).join(', ')}`);
      }
    }
    // Responses: every field a client could read is still there.
    for (const [status, response] of Object.entries<any>(old.responses ?? {})) {
      const oldResponse = resolve(before, response);
      const newResponse = resolve(after, now.responses?.[status]);
      if (!newResponse) {
        if (Number(status) < 400) problems.push(`${key}: response ${status} removed`);
        continue;
      }
      for (const [type, media] of Object.entries<any>(oldResponse?.content ?? {})) {
        const current = newResponse.content?.[type];
        if (!current) {
          problems.push(`${key}: response ${status} no longer has ${type}`);
          continue;
        }
        const newFields = fieldsOf(after, current.schema);
        for (const path of fieldsOf(before, media.schema).keys()) {
          if (!newFields.has(path)) problems.push(`${key}: response ${status} field ${path} removed`);
        }
      }
    }
  }
  return problems;
}

if (require.main === module) {
  const { version, file } = latestRelease();
  const problems = breakingChanges(JSON.parse(readFileSync(file, 'utf8')), JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')));
  if (problems.length) {
    process.stderr.write(`docs/openapi.json breaks clients of ${version}:\n  ${problems.join('\n  ')}\n`);
    process.exit(1);
  }
  process.stdout.write(`docs/openapi.json: no breaking change since ${version}\n`);
}
