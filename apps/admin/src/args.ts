/**
 * `--name value` pairs after the command; a flag without a value is an error. The values of a
 * `repeatable` flag given more than once are joined with commas (see `commaList`).
 */
export function parseFlags(argv: string[], repeatable: readonly string[] = []): Record<string, string> {
  const flags: Record<string, string> = {};
  const set = (name: string, value: string) => {
    flags[name] = repeatable.includes(name) && flags[name] !== undefined ? `${flags[name]},${value}` : value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value`);
    set(arg.slice(2), value);
    i++;
  }
  return flags;
}

export class UsageError extends Error {}

export function required(flags: Record<string, string>, name: string): string {
  const value = flags[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function nonNegativeInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
}

export function rejectUnknown(flags: Record<string, string>, known: string[]): void {
  const unknown = Object.keys(flags).filter((f) => !known.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown option --${unknown[0]}`);
}

/** A required flag holding a comma-separated list (a repeatable flag's values are joined so too); no empty items. */
export function commaList(flags: Record<string, string>, name: string): string[] {
  const items = required(flags, name).split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) throw new UsageError(`--${name} must not hold an empty item`);
  return items;
}
