import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * No code of ours assigns to the prototype of a dependency's class (issue 22): a patch of a
 * library's internals breaks silently on its next release. Ours is a class the file declares or
 * imports from our own code (a relative path, `@app/...`); anything else, a package's export,
 * something taken out of one (`const { Result } = pg`) or a global, is a dependency's. What counts
 * as an assignment: `X.prototype.y = ...`, `X.prototype[y] = ...`, `Object.defineProperty(ies)`,
 * `Object.assign`, `Reflect.set`/`Reflect.defineProperty` on `X.prototype`, and
 * `Object.setPrototypeOf(X.prototype, ...)`. Comments are not code.
 */

const ROOT = join(__dirname, '..', '..');
const SCANNED = ['apps', 'libs', 'tools'];

/** One prototype patch found: where, the class's root name and the statement. */
export interface PrototypePatch {
  line: number;
  root: string;
  text: string;
}

// a class expression: an identifier path, possibly in parentheses with a cast, e.g. `(pg as any).Result`
const TARGET = String.raw`\(?\s*([A-Za-z_$][\w$]*)(?:\s+as\s+[^)]*\))?\s*(?:\??\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\])*?\s*\??\.\s*prototype`;
const PATTERNS = [
  new RegExp(String.raw`${TARGET}\s*(?:\??\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\])\s*(?:=(?!=)|\+=|\|\|=|\?\?=)`, 'g'),
  new RegExp(String.raw`\b(?:Object\.(?:defineProperty|defineProperties|assign|setPrototypeOf)|Reflect\.(?:set|defineProperty))\s*\(\s*${TARGET}\b`, 'g'),
];

function withoutComments(source: string): string {
  // keep the line breaks, so that lines still count
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Names a file binds to our own code: classes it declares and what it imports from relative paths or `@app/`. */
function ownNames(source: string): Set<string> {
  const own = new Set<string>();
  for (const m of source.matchAll(/\b(?:class|function|interface)\s+([A-Za-z_$][\w$]*)/g)) own.add(m[1]);
  for (const m of source.matchAll(/\bimport\s+([\s\S]*?)\s+from\s+['"]((?:\.|@app\/)[^'"]*)['"]/g)) {
    for (const name of m[1].match(/[A-Za-z_$][\w$]*/g) ?? []) if (name !== 'as' && name !== 'type') own.add(name);
  }
  return own;
}

/** The prototype patches of one source file on classes that are not ours. */
export function prototypePatches(source: string): PrototypePatch[] {
  const code = withoutComments(source);
  const own = ownNames(code);
  const found: PrototypePatch[] = [];
  for (const pattern of PATTERNS) {
    for (const m of code.matchAll(pattern)) {
      if (own.has(m[1])) continue;
      const line = code.slice(0, m.index).split('\n').length;
      found.push({ line, root: m[1], text: m[0].trim() });
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.(?:ts|js|mjs|cjs)$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('no prototype patches of dependencies', () => {
  it('finds what a patch looks like, and passes our own classes and comparisons', () => {
    const planted = [
      // pg-rows.ts, as it was
      "import * as pg from 'pg';\nconst { Result } = pg as unknown as { Result: any };\nResult.prototype.addFields = function addFields() {};",
      "import { ServerNats } from '@nestjs/microservices';\nServerNats.prototype.handleMessage = async function () {};",
      "import * as pg from 'pg';\n(pg as any).Result.prototype['addFields'] = () => undefined;",
      "import { Client } from 'pg';\nObject.defineProperty(Client.prototype, 'query', { value: () => 1 });",
      "import { Pool } from 'pg';\nObject.assign(Pool.prototype, { connect() {} });",
      "Promise.prototype.then = function () {};",
      "const nats = require('nats');\nReflect.set(nats.NatsConnectionImpl.prototype, 'publish', () => 1);",
    ];
    for (const source of planted) expect([source, prototypePatches(source).length]).toEqual([source, 1]);

    const clean = [
      'class Mine {}\nMine.prototype.extra = 1;',
      "import { RpcClient } from './rpc.client';\nRpcClient.prototype.send = () => 1;",
      "import { Pool } from 'pg';\nconst same = Object.getPrototypeOf(x) === Pool.prototype;\nif (Pool.prototype.connect == null) throw new Error();",
      "// Result.prototype.addFields = function () {} was here\n/* Object.assign(Pool.prototype, {}) */",
      "import { Pool } from 'pg';\nclass ServicePool extends Pool { connect() { return super.connect(); } }",
    ];
    for (const source of clean) expect([source, prototypePatches(source)]).toEqual([source, []]);
  });

  it(`none in ${SCANNED.join(', ')}`, () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => prototypePatches(readFileSync(file, 'utf8')).map((patch) => `${relative(ROOT, file)}:${patch.line}: ${patch.text}`));
    expect(found).toEqual([]);
  });
});
