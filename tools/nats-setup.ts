import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NATS_IDENTITIES, NatsIdentity } from '@app/contracts';
import { ensureNatsIdentities, natsServerConfig } from '@app/platform/nats-auth';

/**
 * The bus of a container deployment, from the gateway's image (docker-compose.yml's one-shot
 * `nats-config` step):
 *
 *   node dist/tools/nats-setup.js <dir> [--host 0.0.0.0] [--port 4222] [--store-dir /data]
 *
 * writes into <dir>
 *   server/nats.conf              nats-server's configuration, the same generator as `npm start`'s
 *                                 and `npm run -s nats:config`'s (natsServerConfig: JetStream in
 *                                 --store-dir, one NKEY user per identity with the permissions of
 *                                 libs/contracts/src/nats-flows.ts, anonymous connections refused);
 *                                 public keys only, mode 0644
 *   identities/<identity>/seed    each identity's NKEY seed (0600, its directory 0700), made once and
 *                                 kept; a container mounts its own identity's directory only
 * A re-run keeps the seeds and writes the configuration again (the permissions of this build).
 * Prints one JSON line saying what it wrote; exits 2 on a usage error, 1 on any other failure.
 */
export const NATS_SETUP_CONFIG = join('server', 'nats.conf');
export const NATS_SETUP_IDENTITIES = 'identities';

export interface NatsSetupOptions {
  host: string;
  port: number;
  storeDir: string;
}

export interface NatsSetup {
  configFile: string;
  seedFiles: Record<NatsIdentity, string>;
}

/** `--name value` in argv, else the fallback. */
export function cliFlag(argv: readonly string[], name: string, fallback: string): string {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
}

export function writeNatsSetup(dir: string, options: NatsSetupOptions): NatsSetup {
  const identities = ensureNatsIdentities(join(dir, NATS_SETUP_IDENTITIES), { perIdentityDir: true });
  const configFile = join(dir, NATS_SETUP_CONFIG);
  mkdirSync(join(configFile, '..'), { recursive: true, mode: 0o755 });
  // whole or not at all: a nats-server (re)reading it never sees half a file
  const partial = `${configFile}.${process.pid}.tmp`;
  writeFileSync(partial, natsServerConfig({ ...options, users: identities.users }), { mode: 0o644 });
  renameSync(partial, configFile);
  const seedFiles = Object.fromEntries(NATS_IDENTITIES.map((identity) => [identity, identities.seedFile(identity)])) as Record<NatsIdentity, string>;
  return { configFile, seedFiles };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const dir = argv[0];
  const port = Number(cliFlag(argv, 'port', '4222'));
  if (!dir || dir.startsWith('--') || !Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write('usage: node dist/tools/nats-setup.js <dir> [--host 0.0.0.0] [--port 4222] [--store-dir /data]\n');
    process.exit(2);
  }
  try {
    const setup = writeNatsSetup(resolve(dir), { host: cliFlag(argv, 'host', '0.0.0.0'), port, storeDir: cliFlag(argv, 'store-dir', '/data') });
    process.stdout.write(`${JSON.stringify({ config: setup.configFile, identities: setup.seedFiles })}\n`);
  } catch (err) {
    process.stderr.write(`nats-setup: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
