/** A mistake in how `lim` was called: the message, the usage, and exit code 2. */
export class UsageError extends Error {}

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/**
 * `--name value`, `--name=value` and positionals, in any order. `switches` name the flags that
 * take no value; `--` ends the flags.
 */
export function parseArgs(argv: readonly string[], switches: ReadonlySet<string> = new Set()): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (name === '') throw new UsageError(`${arg} is not a flag`);
    if (flags.has(name)) throw new UsageError(`--${name} is given twice`);
    if (switches.has(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    if (eq >= 0) {
      flags.set(name, arg.slice(eq + 1));
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
    i++;
  }
  return { positionals, flags };
}

/** The flag's value, if given (a switch given a value, or a value flag given as a switch, is a usage error). */
export function flag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

export function requiredFlag(args: ParsedArgs, name: string): string {
  const value = flag(args, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Refuses flags the command does not take. */
export function onlyFlags(args: ParsedArgs, allowed: readonly string[]): void {
  for (const name of args.flags.keys()) {
    if (!allowed.includes(name)) throw new UsageError(`unknown flag --${name}`);
  }
}

/** An http:// or https:// URL a receiver listens on. */
export function receiverUrl(value: string, name = 'forward-to'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${name} must be an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--${name} must be an absolute http:// or https:// URL`);
  return url;
}

/** An integer flag within bounds. */
export function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const value = flag(args, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return Number(value);
}

/** `a,b` → ['a', 'b'] (blanks dropped, each once). */
export function listFlag(args: ParsedArgs, name: string): string[] | undefined {
  const value = flag(args, name);
  if (value === undefined) return undefined;
  const items = [...new Set(value.split(',').map((v) => v.trim()).filter(Boolean))];
  if (items.length === 0) throw new UsageError(`--${name} must name at least one value`);
  return items;
}
