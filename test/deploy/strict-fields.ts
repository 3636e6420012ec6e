import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Unknown-field check (what `kubectl --validate=strict` and kubeconform -strict report): the
 * JSON schemas of kubernetes-models accept any extra property, so a misspelt field such as
 * `readOnlyRootFilesytem` would pass and then be dropped by the API server. This walks an object
 * along the property lists of the package's own type declarations (.d.ts) and names every field
 * the Kubernetes type does not have.
 */

type Field = { kind: 'leaf' } | { kind: 'object' | 'array' | 'map'; file: string };
interface Shape {
  fields: Map<string, Field>;
}

const NODE_MODULES = join(dirname(require.resolve('kubernetes-models/package.json')), '..');
const shapes = new Map<string, Shape | null>();

function importsOf(text: string, file: string): Map<string, string> {
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) {
    const spec = m[2];
    imports.set(m[1], spec.startsWith('.') ? join(dirname(file), `${spec}.d.ts`) : join(NODE_MODULES, `${spec}.d.ts`));
  }
  return imports;
}

function shapeOf(file: string): Shape | null {
  if (shapes.has(file)) return shapes.get(file)!;
  shapes.set(file, null);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const start = text.match(/^export interface I\w+(?: extends ([\w, ]+))? \{$/m);
  if (!start) return null; // a type alias (IntOrString, Quantity, Time…): a leaf
  const imports = importsOf(text, file);
  const fields = new Map<string, Field>();
  if (start[1]?.includes('TypeMeta')) {
    fields.set('apiVersion', { kind: 'leaf' });
    fields.set('kind', { kind: 'leaf' });
  }
  const lines = text.slice(start.index! + start[0].length).split('\n');
  const typed = (name: string, kind: 'object' | 'array' | 'map'): Field => {
    const target = imports.get(name);
    return target && shapeOf(target) ? { kind, file: target } : { kind: 'leaf' };
  };
  for (let i = 0; i < lines.length && lines[i] !== '}'; i++) {
    const m = lines[i].match(/^ {4}"([^"]+)"\??: (.*)$/);
    if (!m) continue;
    const [, key, rest] = m;
    let field: Field = { kind: 'leaf' };
    if (rest === '{') {
      const body: string[] = [];
      while (!/^ {4}\};?$/.test(lines[++i])) body.push(lines[i]);
      const value = body.join('\n').match(/\[key: string\]: (\w+);/);
      if (value) field = typed(value[1], 'map');
    } else {
      const type = rest.replace(/;$/, '');
      const array = type.match(/^Array<(\w+)>$/);
      if (array) field = typed(array[1], 'array');
      else if (/^\w+$/.test(type)) field = typed(type, 'object');
    }
    fields.set(key, field);
  }
  const shape = { fields };
  shapes.set(file, shape);
  return shape;
}

function walk(value: unknown, file: string, path: string, errors: string[]): void {
  const shape = shapeOf(file);
  if (!shape || !value || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const field = shape.fields.get(key);
    if (!field) {
      errors.push(`${path}.${key}: unknown field`);
      continue;
    }
    if (field.kind === 'object') walk(child, field.file, `${path}.${key}`, errors);
    if (field.kind === 'array' && Array.isArray(child)) child.forEach((c, i) => walk(c, field.file, `${path}.${key}[${i}]`, errors));
    if (field.kind === 'map' && child && typeof child === 'object') {
      for (const [k, v] of Object.entries(child)) walk(v, field.file, `${path}.${key}.${k}`, errors);
    }
  }
}

/** Fields of `obj` its Kubernetes type does not define; [] for a kind without declarations. */
export function unknownFields(obj: { apiVersion?: string; kind?: string }): string[] {
  const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : ['', String(obj.apiVersion)];
  const file = join(NODE_MODULES, 'kubernetes-models', ...(group ? [group] : []), version, `${obj.kind}.d.ts`);
  const errors: string[] = [];
  walk(obj, file, String(obj.kind), errors);
  return errors;
}
