import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/** The rendering of k8s/ in the tests: the real `kubectl kustomize`, each directory once. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

export const KUBECTL = process.env.KUBECTL || 'kubectl';

export function loadYaml(text: string, file: string): Obj[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS({ maxAliasCount: 100 }) as Obj | null;
    })
    .filter((doc): doc is Obj => doc !== null && doc !== undefined);
}

const rendered = new Map<string, Obj[]>();

/** `kubectl kustomize <dir>`, parsed; a failure (or anything on stderr) throws with kubectl's message. */
export function kustomize(dir: string): Obj[] {
  let objects = rendered.get(dir);
  if (!objects) {
    const out = spawnSync(KUBECTL, ['kustomize', dir], { encoding: 'utf8' });
    if (out.error) throw new Error(`${KUBECTL} kustomize ${dir}: ${out.error.message} (the tests need kubectl, or KUBECTL naming it)`);
    if (out.status !== 0 || out.stderr) throw new Error(`${KUBECTL} kustomize ${dir} exited ${out.status}: ${out.stderr}`);
    objects = loadYaml(out.stdout, dir);
    // kubectl folds long base64 values over lines, which YAML reads back with spaces in them.
    for (const o of objects) if (o.kind === 'Secret') for (const k of Object.keys(o.data ?? {})) o.data[k] = String(o.data[k]).replace(/\s/g, '');
    rendered.set(dir, objects);
  }
  return structuredClone(objects);
}

/** The kind of a kustomization directory's file: Kustomization or Component. */
export function kustomizationKind(dir: string): string {
  return parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'))?.kind ?? 'Kustomization';
}

/** Every directory under root with a kustomization.yaml, sorted. */
export function kustomizationDirs(root: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    if (existsSync(join(d, 'kustomization.yaml'))) found.push(d);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
  };
  walk(root);
  return found.sort();
}
