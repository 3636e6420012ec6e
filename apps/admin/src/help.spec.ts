import { COMMANDS } from './commands';
import { commandHelp, overview, requiredFlags, unknownCommandHint } from './help';

/** The help is built from each command's own row: every row must be complete and consistent. */
describe('admin CLI help rows', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s: a summary, an example of itself, usage flags it accepts', (_name, command) => {
    expect(command.summary).toBeTruthy();
    expect(command.example?.startsWith(`${command.name} `)).toBe(true);
    const used = [...command.usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]);
    expect(used.filter((f) => !command.flags.includes(f))).toEqual([]);
    const exampleFlags = [...command.example!.matchAll(/ --([a-z][a-z-]*)/g)].map((m) => m[1]);
    expect(requiredFlags(command).filter((f) => !exampleFlags.includes(f))).toEqual([]);
  });

  it('reads required flags from the usage line: outside [optional] and (one-of) groups', () => {
    const row = (usage: string) => requiredFlags({ name: 'x', usage, flags: [], run: async () => undefined });
    expect(row('--workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]')).toEqual(['workspace', 'mode']);
    expect(row('(--email <addr> | --domain <domain>) [--workspace <ws_id>]')).toEqual([]);
    expect(row('--count <n> [--start <n> [--step <n>]]')).toEqual(['count']);
  });

  it('lists every command in the overview and suggests the nearest name', () => {
    const text = overview(COMMANDS);
    for (const c of COMMANDS) expect(text).toMatch(new RegExp(`\\n  ${c.name} +\\S`));
    expect(text.split('\n').every((line) => line.length <= 100)).toBe(true);
    expect(unknownCommandHint('credit:grant', COMMANDS)).toMatch(/^did you mean credits:grant\? /);
    expect(unknownCommandHint('zzz', COMMANDS)).toBe('npm run -s admin -- --help lists the commands');
    const key = COMMANDS.find((c) => c.name === 'key:create')!;
    expect(commandHelp(key).split('\n')[0]).toBe(`usage: npm run -s admin -- key:create ${key.usage}`);
  });
});
