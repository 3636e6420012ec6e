import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProcess } from 'node:child_process';
import { freePort, listensOn, startNatsServer, tcpAnswers } from '../../tools/mesh/processes';

/**
 * startNatsServer is ready when the nats-server it started listens, not when the port answers:
 * a port freePort found free can be taken by another process before the server binds it, and a
 * starter that took that listener for its server connected for 60 s to nothing (a loaded run,
 * 2026-11-30). The harness then tries another port.
 */
describe('startNatsServer', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const dir = () => {
    const made = mkdtempSync(join(tmpdir(), 'nats-start-'));
    dirs.push(made);
    return made;
  };
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const made of dirs) rmSync(made, { recursive: true, force: true });
  });

  it('a port another process listens on: rejects at once (the server exits), never takes that listener for its server', async () => {
    const other: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as { port: number }).port;
    try {
      const started = Date.now();
      await expect(startNatsServer(port, dir())).rejects.toThrow(/^nats-server exited/);
      expect(Date.now() - started).toBeLessThan(5000); // not NATS_START_TIMEOUT_MS's wait
    } finally {
      other.close();
    }
  });

  it('a free port: resolves once its own server listens there', async () => {
    const port = await freePort();
    const nats = await startNatsServer(port, dir());
    children.push(nats.child);
    expect(nats.child.exitCode).toBeNull();
    expect(await tcpAnswers('127.0.0.1', port)).toBe(true);
  });
});

/** listensOn: whose socket answers on a port (the harness's readiness takes no other process's answer for its app's). */
describe('listensOn', () => {
  it('is true for the process that listens on the port, false for another process and for a port nobody listens on', async () => {
    const server: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(listensOn(process.pid, port)).toBe(true);
      expect(listensOn(process.ppid, port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(listensOn(process.pid, port)).toBe(false);
  });
});

describe('freePort', () => {
  // a port of the ephemeral range may become another process's source port before the caller binds it
  it('hands out ports below the kernel\'s ephemeral range (and above the mesh\'s fixed ports), each free to listen on', async () => {
    const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    for (const port of ports) {
      expect({ port, below: port < ephemeralFrom, above: port >= 10_000 }).toEqual({ port, below: true, above: true });
      const server: Server = createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise((resolve) => server.close(resolve));
    }
    expect(new Set(ports).size).toBeGreaterThan(15); // spread, not one port over and over
  });
});
