import { allowance } from './timing';

export { SmtpSink } from '../../tools/mesh/smtp-sink';
export type { SunkMail } from '../../tools/mesh/smtp-sink';

/** Polls until `check` returns a truthy value (or fails after `ms`, by default 15 s of the machine's allowance). */
export async function eventually<T>(what: string, check: () => Promise<T> | T, ms = allowance(15_000)): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
