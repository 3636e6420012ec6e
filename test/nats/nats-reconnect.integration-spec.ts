import { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { connectNats } from '@app/platform';
import { freePort, startNatsServer } from '../../tools/mesh/processes';

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

/**
 * A mesh connection reconnects for ever (NATS_CONNECTION_DEFAULTS), also through authorization
 * failures: nats.js otherwise gives a connection up for good at its second one (it never forgets
 * the first), so a nats-server restarted for a moment with a configuration that lacks the
 * identity (a rollout of a new one, a wrong Secret) would leave every service without its bus,
 * ready by its probes, until restarted by hand.
 */
describe('a mesh connection through a server that refuses its identity for a while', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let nc: NatsConnection | undefined;
  const dir = () => {
    const made = mkdtempSync(join(tmpdir(), 'nats-reconnect-'));
    dirs.push(made);
    return made;
  };
  afterAll(async () => {
    await nc?.close();
    for (const child of children) child.kill('SIGKILL');
    for (const made of dirs) rmSync(made, { recursive: true, force: true });
  });

  it('reconnects once the server knows the identity again, and is not closed meanwhile', async () => {
    const port = await freePort();
    const home = dir();
    const first = await startNatsServer(port, home);
    children.push(first.child);
    const seed = readFileSync(first.identities.seedFile('billing'), 'utf8').trim();
    // what the service's log says of it (logConnectionStatus), recorded
    const logged: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
    const record = (level: string) => (fields: Record<string, unknown>, msg?: string) => logged.push({ level, msg: msg ?? String(fields), fields });
    const log = { warn: record('warn'), info: record('info'), error: record('error'), debug: record('debug') } as unknown as Logger;
    (log as unknown as { child: () => Logger }).child = () => log;
    nc = await connectNats({ url: `nats://127.0.0.1:${port}`, identity: 'billing', seed }, 'billing-reconnect-test', log);
    await nc.flush();
    const authErrors: string[] = [];
    void (async () => {
      for await (const status of nc!.status()) {
        if (status.type === 'error' && /authorization/i.test(status.error?.message ?? '')) authErrors.push(status.error.message);
      }
    })();
    const waitFor = async (what: () => boolean) => {
      const until = Date.now() + 15_000;
      while (!what() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    };

    // the same port, other identities: billing's key is unknown there
    await stop(first.child);
    const stranger = await startNatsServer(port, dir());
    children.push(stranger.child);
    await waitFor(() => authErrors.length >= 3);
    expect(authErrors.length).toBeGreaterThanOrEqual(3);
    expect(nc.isClosed()).toBe(false);

    // back to the server that knows it
    await stop(stranger.child);
    const again = await startNatsServer(port, home);
    children.push(again.child);
    // a flush sent while it still reconnects fails with the attempt ("connection disconnected"): asked until one is answered
    let flushed = false;
    let lastError = '';
    const until = Date.now() + 15_000;
    while (!flushed && Date.now() < until) {
      flushed = await nc.flush().then(() => true, (err: Error) => ((lastError = err.message), false));
      if (!flushed) await new Promise((r) => setTimeout(r, 100));
    }
    expect({ flushed, lastError }).toMatchObject({ flushed: true });
    expect(logged.filter((l) => l.level === 'warn' && l.msg === 'nats: the server reported an error').map((l) => l.fields.err)).toContain('Authorization Violation');
    expect(logged.some((l) => l.level === 'warn' && l.msg === 'nats: disconnected; reconnecting')).toBe(true);
    expect(logged.some((l) => l.level === 'info' && l.msg === 'nats: reconnected')).toBe(true);
    expect(logged.filter((l) => l.level === 'error')).toEqual([]);
    expect(nc.isClosed()).toBe(false);
  });
});
