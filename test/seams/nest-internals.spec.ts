import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCANNED = ['apps', 'libs', 'tools'];
const SOURCE = /\.(ts|js|mjs|cjs)$/;

/** Every source file under apps/, libs/ and tools/ (not node_modules, not build output). */
function sources(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, found);
    else if (SOURCE.test(name)) found.push(path);
  }
  return found;
}

/** The lines of the sources that match `pattern`, as `file:line: text`. */
function occurrences(pattern: RegExp): string[] {
  const hits: string[] = [];
  for (const file of SCANNED.flatMap((dir) => sources(join(ROOT, dir)))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (pattern.test(line)) hits.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

/** An import of one of Nest's internal entry points. */
const NEST_INTERNAL_IMPORT = /['"`]@nestjs\/[\w-]+\/internal(\/[^'"`]*)?['"`]/;
/** A nats.js connection's private fields: its protocol handler, transport and socket, its options. */
const NATS_PRIVATE_FIELD = /\bprotocol\??\.\s*transport\b|\btransport\??\.\s*socket\b|\bsocket\??\.\s*(cork|uncork)\b|\bsocket\.write\s*=(?!=)|__coalesced|\.options\??\.\s*inboxPrefix\b/;

/**
 * The mesh stands on its libraries' public API only (issue 22): Nest's `internal` entry points
 * are "not part of the public API" and change without notice, and the private fields of a
 * nats.js connection (its protocol handler, transport and socket, its options) are not an API.
 */
describe('no library internals in apps/, libs/ or tools/', () => {
  it('imports no @nestjs/*/internal module', () => {
    expect(occurrences(NEST_INTERNAL_IMPORT)).toEqual([]);
  });

  it("reads and writes no private field of a nats.js connection (its protocol, transport, socket or options)", () => {
    expect(occurrences(NATS_PRIVATE_FIELD)).toEqual([]);
  });

  it('the checks see what they look for (a sample of each pattern is caught)', () => {
    expect(NEST_INTERNAL_IMPORT.test("import { ExecutionContextHost } from '@nestjs/core/internal';")).toBe(true);
    expect(NEST_INTERNAL_IMPORT.test("import { Server } from '@nestjs/microservices';")).toBe(false);
    expect(NATS_PRIVATE_FIELD.test('(nc as any).protocol?.transport?.socket')).toBe(true);
    expect(NATS_PRIVATE_FIELD.test('(nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix')).toBe(true);
    expect(NATS_PRIVATE_FIELD.test('socket.write = function (this: CorkableSocket, ...args: unknown[]) {')).toBe(true);
    expect(NATS_PRIVATE_FIELD.test("if (url.protocol !== 'https:')")).toBe(false);
    expect(NATS_PRIVATE_FIELD.test('socket.write(`${line}\\r\\n`)')).toBe(false);
  });
});
