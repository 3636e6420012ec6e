import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stagedPackages } from '../../tools/packages/stage';
import { Running } from './running';

/**
 * packages/client and packages/cli staged as npm publishes them (tools/packages/stage.ts) and laid
 * out as npm installs them (`node_modules/@lead-intelligence/{client,cli}`), so `lim` runs as an
 * integrator's would: nothing resolves from the repository's node_modules, and the packages'
 * own folders are not written (another test builds packages/client in place). The staging is the
 * one of these sources every file and `npm run packages:pack` share (`stagedPackages`): `lim` only reads it.
 */
export class LimBuild {
  private constructor(readonly dir: string, readonly main: string) {}

  static async build(): Promise<LimBuild> {
    const { dir, packages } = await stagedPackages();
    return new LimBuild(dir, join(packages.cli, 'dist', 'main.js'));
  }

  env(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
  }
  /** `lim <args>` to its end. */
  run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [this.main, ...args], { env: this.env(env), cwd: this.dir }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  }

  /** `lim <args>` left running (listen). */
  spawn(args: string[], env: Record<string, string | undefined>): Running {
    return new Running(spawn(process.execPath, [this.main, ...args], { env: this.env(env), cwd: this.dir }));
  }
}
