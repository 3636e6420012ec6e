import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonPatch, loadYaml, render, renderDir, strategicMerge } from './kustomize';

/** The renderer's own behaviour, on small kustomizations (compared with kubectl where it exists). */

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  labels: { app: api }
spec:
  selector: { matchLabels: { app: api } }
  template:
    metadata: { labels: { app: api } }
    spec:
      containers:
        - name: api
          image: registry.local:5000/team/api:1.0
          env: [{ name: A, value: "1" }, { name: B, value: "2" }]
          envFrom: [{ configMapRef: { name: settings } }, { secretRef: { name: creds } }]
        - name: sidecar
          image: busybox
`;

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kustomize-'));
  write('base/deployment.yaml', deployment);
  write('base/settings.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\ndata: { LEVEL: info }\n');
  write('base/kustomization.yaml', 'resources: [deployment.yaml, settings.yaml]\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const kubectl = spawnSync('kubectl', ['version', '--client']).status === 0;
function sameAsKubectl(dir: string): void {
  if (!kubectl) return;
  const ours = renderDir(join(root, dir));
  const stem = (t: string) => ours.generated.reduce((x, g) => x.replace(new RegExp(`\\b${g.name}-[a-z0-9]{10}\\b`, 'g'), `${g.name}-H`), t);
  const out = spawnSync('kubectl', ['kustomize', join(root, dir)], { encoding: 'utf8' });
  expect(out.stderr).toBe('');
  const theirs = loadYaml(stem(out.stdout), dir).map((o) => {
    if (o.kind === 'Secret') for (const k of Object.keys(o.data ?? {})) o.data[k] = String(o.data[k]).replace(/\s/g, '');
    return o;
  });
  const key = (o: any) => `${o.kind}/${o.metadata.name}`;
  const sort = (objs: any[]) => [...objs].sort((a, b) => key(a).localeCompare(key(b)));
  expect(sort(JSON.parse(stem(JSON.stringify(ours.objects))))).toEqual(sort(theirs));
}

it('overlay: namespace, images (registry with a port), replicas, merge patch by container name, JSON 6902, generators', () => {
  write(
    'overlay/kustomization.yaml',
    `resources: [../base]
namespace: team
images:
  - { name: registry.local:5000/team/api, newName: ghcr.io/team/api, newTag: "2.0" }
  - { name: busybox, digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000" }
replicas: [{ name: api, count: 3 }]
configMapGenerator:
  - { name: settings, behavior: merge, literals: [LEVEL=debug, EXTRA=x] }
secretGenerator:
  - { name: creds, literals: [TOKEN=abc] }
patches:
  - patch: |-
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: api }
      spec:
        template:
          spec:
            containers:
              - name: api
                env: [{ name: B, value: "20" }, { name: C, value: "3" }]
  - target: { kind: Deployment, labelSelector: app=api }
    patch: |-
      - op: add
        path: /spec/template/spec/containers/1/args
        value: [sleep, "1"]
      - op: remove
        path: /spec/template/spec/containers/0/env/0
`,
  );
  const objs = render(join(root, 'overlay'));
  const d = objs.find((o) => o.kind === 'Deployment')!;
  expect(d.metadata.namespace).toBe('team');
  expect(d.spec.replicas).toBe(3);
  const [api, sidecar] = d.spec.template.spec.containers;
  expect(api.image).toBe('ghcr.io/team/api:2.0');
  expect(sidecar.image).toBe('busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000');
  expect(api.env).toEqual([{ name: 'C', value: '3' }, { name: 'A', value: '1' }]);
  expect(sidecar.args).toEqual(['sleep', '1']);
  const secret = objs.find((o) => o.kind === 'Secret')!;
  expect(secret.metadata.name).toMatch(/^creds-[a-z0-9]{10}$/);
  expect(secret.data).toEqual({ TOKEN: Buffer.from('abc').toString('base64') });
  expect(api.envFrom).toEqual([{ configMapRef: { name: 'settings' } }, { secretRef: { name: secret.metadata.name } }]);
  expect(objs.find((o) => o.kind === 'ConfigMap')!.data).toEqual({ LEVEL: 'debug', EXTRA: 'x' });
  sameAsKubectl('overlay');
});

it('the hash suffix follows the content, and generated names are rewritten where referenced', () => {
  write('a/kustomization.yaml', 'resources: [../base]\nsecretGenerator: [{ name: creds, literals: [TOKEN=abc] }]\n');
  write('b/kustomization.yaml', 'resources: [../base]\nsecretGenerator: [{ name: creds, literals: [TOKEN=abd] }]\n');
  const name = (dir: string) => render(join(root, dir)).find((o) => o.kind === 'Secret')!.metadata.name;
  expect(name('a')).not.toBe(name('b'));
  expect(name('a')).toBe(name('a'));
});

it('refuses what it does not render, and patches or replicas that match nothing', () => {
  write('x/kustomization.yaml', 'resources: [../base]\ncommonLabels: { a: b }\n');
  expect(() => render(join(root, 'x'))).toThrow(/commonLabels.*not supported/);
  write('y/kustomization.yaml', 'resources: [../base]\nreplicas: [{ name: nope, count: 2 }]\n');
  expect(() => render(join(root, 'y'))).toThrow(/replicas for nope/);
  write('z/kustomization.yaml', 'resources: [../base]\npatches:\n  - target: { kind: Service }\n    patch: "[{op: remove, path: /spec}]"\n');
  expect(() => render(join(root, 'z'))).toThrow(/matches nothing/);
  write('w/kustomization.yaml', 'resources: [../base, ../base/deployment.yaml]\n');
  expect(() => render(join(root, 'w'))).toThrow(/appears twice/);
});

describe('patch primitives', () => {
  it('strategic merge: maps merge, keyed lists merge by key, null deletes, $patch: delete removes an item', () => {
    const target = { a: { b: 1, c: 2 }, containers: [{ name: 'x', image: 'i' }, { name: 'y' }], args: ['1', '2'] };
    expect(
      strategicMerge(target, { a: { c: null, d: 3 }, containers: [{ name: 'x', image: 'j' }, { name: 'y', $patch: 'delete' }], args: ['3'] }),
    ).toEqual({ a: { b: 1, d: 3 }, containers: [{ name: 'x', image: 'j' }], args: ['3'] });
    // kustomize's order: the patch's items, then the others.
    expect(strategicMerge([{ name: 'a' }, { name: 'b' }], [{ name: 'b', v: 1 }, { name: 'c' }], 'env')).toEqual([{ name: 'b', v: 1 }, { name: 'c' }, { name: 'a' }]);
  });

  it('JSON 6902: add (append with -), replace, remove; a missing path is an error', () => {
    const doc = { list: [1, 2], map: { 'a/b': 1 } };
    expect(jsonPatch(doc, [{ op: 'add', path: '/list/-', value: 3 }, { op: 'replace', path: '/map/a~1b', value: 2 }, { op: 'remove', path: '/list/0' }])).toEqual({
      list: [2, 3],
      map: { 'a/b': 2 },
    });
    expect(() => jsonPatch(doc, [{ op: 'replace', path: '/nope', value: 1 }])).toThrow(/no such path/);
    expect(() => jsonPatch(doc, [{ op: 'move', from: '/list', path: '/x' }])).toThrow(/not supported/);
  });
});
