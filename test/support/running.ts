import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, waitFor } from '../../tools/mesh/processes';
import { HARNESS } from '../harness';

/** A process started by a test, its stdout read line by line. */
export class Running {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.lines.push(line));
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** The JSON lines printed so far. */
  json(): any[] {
    return this.lines.map((line) => JSON.parse(line));
  }

  /** SIGINT, as Ctrl-C; SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * examples/webhook-receiver run as its own process on `port`, verifying with `secret`, once it
 * listens; added to `started` as soon as it is spawned, so the caller stops it whatever happens.
 */
export async function startExampleReceiver(port: number, secret: string, started: Running[]): Promise<Running> {
  const running = new Running(spawn(process.execPath, [join(ROOT, 'examples/webhook-receiver/server.js')], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: String(port) }, cwd: ROOT,
  }));
  started.push(running);
  await waitFor('the receiver listening', async () => running.lines.some((l) => l.includes(`webhook receiver on port ${port}`)), HARNESS.readyTimeoutMs, 50);
  return running;
}
