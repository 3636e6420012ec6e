import { existsSync } from 'node:fs';
import chromiumPackage from '@sparticuz/chromium';

export interface ChromiumBinary {
  executablePath: string;
  /** Where it came from, for a failing test's message. */
  source: 'CHROMIUM_PATH' | 'debian' | '@sparticuz/chromium';
}

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The chromium the browser tests drive: `CHROMIUM_PATH` when set, else Debian's when installed,
 * else the one `@sparticuz/chromium` ships inside its npm package (a self-contained build that
 * needs only libc; the first call unpacks it to /tmp, ~2 s). So `npm ci && npm test` needs no
 * apt step and playwright-core still downloads nothing.
 */
export async function resolveChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumBinary> {
  if (env.CHROMIUM_PATH) return { executablePath: env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, source: 'debian' };
  return { executablePath: await chromiumPackage.executablePath(), source: '@sparticuz/chromium' };
}

/**
 * Arguments for either binary: no sandbox (tests run as root in CI, where chromium refuses one).
 * The package's own `args` are left out: they are for serverless hosts and include
 * `--disable-web-security`, which would change what the page under test may do.
 */
export const CHROMIUM_ARGS = ['--no-sandbox'];
