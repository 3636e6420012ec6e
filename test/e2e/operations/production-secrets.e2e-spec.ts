import { randomBytes } from 'node:crypto';
import type { ServiceName } from '@app/contracts/subjects';
import { HARNESS, TestMesh } from '../../harness';
import { freePort, spawnApp } from '../../../tools/mesh/processes';

/**
 * Secrets fail closed in production: with NODE_ENV=production a service that lacks one of its
 * signing or sealing secrets, or its NATS identity, refuses to start and says which variable.
 */
describe('production secrets', () => {
  let mesh: TestMesh;
  const secrets = {
    EXPORT_SIGNING_SECRET: randomBytes(32).toString('hex'),
    SEQUENCES_SECRET_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    IDEMPOTENCY_SECRET_KEY: randomBytes(32).toString('hex'),
  };

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
  });
  afterAll(async () => mesh?.close());

  /** Starts `name` with production settings and `env` on top; resolves with its exit code and output once it exits or is ready. */
  async function boot(name: ServiceName, env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
    const lines: string[] = [];
    const app = spawnApp(name, { ...mesh.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ...secrets, ...env }, await freePort(), (line) => lines.push(line));
    // both timers cleared whatever the outcome: one left running (the app exited first) kept an
    // in-band jest (one file, `npm test -- <path>`) from exiting after the file
    let poll: NodeJS.Timeout | undefined;
    let slow: NodeJS.Timeout | undefined;
    const ready = new Promise<'ready'>((resolve) => {
      poll = setInterval(() => lines.some((l) => l.includes(`${name} ready`)) && resolve('ready'), 50);
    });
    const outcome = await Promise.race([app.exited, ready, new Promise<'slow'>((r) => (slow = setTimeout(() => r('slow'), HARNESS.readyTimeoutMs)))]).finally(() => {
      clearInterval(poll);
      clearTimeout(slow);
    });
    if (outcome === 'ready' || outcome === 'slow') {
      app.child.kill('SIGKILL');
      await app.exited;
      return { code: outcome === 'ready' ? 0 : -1, output: lines.join('\n') };
    }
    return { code: outcome, output: lines.join('\n') };
  }

  it.each([
    ['crm', 'EXPORT_SIGNING_SECRET'],
    ['gateway', 'EXPORT_SIGNING_SECRET'],
    ['gateway', 'IDEMPOTENCY_SECRET_KEY'],
    ['sequences', 'SEQUENCES_SECRET_KEY'],
    ['webhooks', 'WEBHOOK_SECRET_KEY'],
  ] as const)('%s refuses to start without %s', async (name, variable) => {
    const { code, output } = await boot(name, { [variable]: undefined });
    expect(code).toBe(1);
    expect(output).toContain(`${variable} is required when NODE_ENV=production`);
  });

  it('refuses the public development value and a short secret', async () => {
    const dev = await boot('crm', { EXPORT_SIGNING_SECRET: 'dev-only-export-signing-secret-change-me' });
    expect(dev.code).toBe(1);
    expect(dev.output).toContain('EXPORT_SIGNING_SECRET is the public development value');
    const short = await boot('sequences', { SEQUENCES_SECRET_KEY: 'short' });
    expect(short.code).toBe(1);
    expect(short.output).toContain('SEQUENCES_SECRET_KEY must be at least 32 characters');
  });

  it('refuses to start without its NATS identity', async () => {
    const { code, output } = await boot('billing', { NATS_NKEY_SEED_FILE: undefined, MESH_NATS_IDENTITY_DIR: undefined });
    expect(code).toBe(1);
    expect(output).toContain('NATS_NKEY_SEED_FILE or NATS_NKEY_SEED is required when NODE_ENV=production');
  });

  it('starts with every secret and its identity set', async () => {
    expect((await boot('crm', {})).code).toBe(0);
  });
});
