import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../tools/mesh/processes';

/** docker-compose.yml and the Dockerfile's runtime stage, read the way compose and docker read them. */

export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
// Compose files use YAML 1.1 merge keys (<<: *anchor).
export const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true, maxAliasCount: 1000 }) as Record<string, any>;
export const services: Record<string, any> = compose.services;

/** One volume of a service, short (`source:target[:ro]`) or long syntax alike. */
export interface Mount {
  /** A named volume, or a host path (bind). */
  source: string;
  target: string;
  readOnly: boolean;
  /** The directory of the volume mounted instead of its root (long syntax `volume.subpath`). */
  subpath?: string;
}

export function mounts(service: any): Mount[] {
  return (service.volumes ?? []).map((volume: any): Mount => {
    if (typeof volume === 'string') {
      const [source, target, mode] = volume.split(':');
      return { source, target, readOnly: mode === 'ro' };
    }
    return { source: volume.source, target: volume.target, readOnly: volume.read_only === true, ...(volume.volume?.subpath ? { subpath: volume.volume.subpath } : {}) };
  });
}

/** A service's `environment`, as a map (compose accepts a list of KEY=value too). */
export function environmentOf(service: any): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((line: string) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
}

/** What a container of our image starts with: the runtime stage's ENV, WORKDIR, USER and CMD. */
export interface ImageRuntime {
  env: Record<string, string>;
  workdir: string;
  user: string;
  /** CMD in shell form (run by /bin/sh -c), as the Dockerfile writes it. */
  cmd: string;
}

export const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The runtime stage (the last FROM) as built with these build arguments (APP). */
export function imageRuntime(buildArgs: Record<string, string>): ImageRuntime {
  const stage = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '));
  const args: Record<string, string> = {};
  for (const [, name, value] of stage.matchAll(/^ARG (\w+)(?:=(\S*))?$/gm)) args[name] = buildArgs[name] ?? value ?? '';
  const expand = (text: string) => text.replace(/\$\{(\w+)\}/g, (_, name: string) => args[name] ?? '');
  const env: Record<string, string> = {};
  for (const [, list] of stage.matchAll(/^ENV (.+)$/gm)) {
    for (const [, name, quoted, bare] of list.matchAll(/(\w+)=(?:"([^"]*)"|(\S*))/g)) env[name] = expand(quoted ?? bare);
  }
  const last = (instruction: string) => [...stage.matchAll(new RegExp(`^${instruction} (.+)$`, 'gm'))].pop()?.[1];
  return { env, workdir: last('WORKDIR') ?? '/', user: last('USER') ?? 'root', cmd: last('CMD') ?? '' };
}
