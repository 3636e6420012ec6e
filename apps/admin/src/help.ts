import { AdminCommand } from './commands/command';

/**
 * The admin CLI's help, built from the commands' own rows (commands/*.ts): the overview for
 * `--help`, one command's page for `<command> --help`, and the short forms errors end with.
 */

export const INVOCATION = 'npm run -s admin --';

export function overview(commands: AdminCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `usage: ${INVOCATION} <command> [--flag value ...]`,
    '       (in a service image: node dist/apps/admin/src/main.js <command> ...)',
    '',
    'The operator side of the platform: workspaces, members, keys, credits, mailboxes, sequences,',
    'the search index. Prints one JSON object on stdout; on error, a message on stderr and exit 1',
    '(2 for a usage error). Progress of long jobs goes to stderr, only when it is a terminal.',
    '',
    'commands:',
    ...commands.flatMap((c) => wrap(c.summary ?? c.usage, 100 - width - 2).map((line, i) => `  ${(i === 0 ? c.name : '').padEnd(width)}${line}`)),
    '',
    'settings: DATABASE_URL (the PostgreSQL server) and DB_PREFIX name the gateway database',
    '(GATEWAY_DATABASE_URL instead, if set); NATS_URL the NATS server, for the commands that',
    'ask a service. The gateway creates and migrates its database at start-up; the CLI does not.',
    '',
    `${INVOCATION} <command> --help    a command's flags and an example`,
  ].join('\n');
}

export function commandHelp(command: AdminCommand): string {
  return [
    usageLine(command),
    ...(command.summary ? ['', command.summary] : []),
    ...(command.example ? ['', `example: ${INVOCATION} ${command.example}`] : []),
  ].join('\n');
}

export function usageLine(command: AdminCommand): string {
  return `usage: ${INVOCATION} ${command.name} ${command.usage}`;
}

/**
 * The flags a command cannot do without, read from its usage line: those outside brackets
 * (optional) and parentheses (one of several), so the usage line stays the one place that says so.
 */
export function requiredFlags(command: AdminCommand): string[] {
  let usage = command.usage;
  for (let previous = ''; previous !== usage; ) {
    previous = usage;
    usage = usage.replace(/\[[^[\]]*\]|\([^()]*\)/g, '');
  }
  return [...usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]);
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line];
}

/** For an unknown command: the nearest known name when one is close, and where the list is. */
export function unknownCommandHint(name: string, commands: AdminCommand[]): string {
  const nearest = commands
    .map((c) => ({ name: c.name, distance: editDistance(name, c.name) }))
    .sort((a, b) => a.distance - b.distance)[0];
  const guess = nearest && nearest.distance <= Math.max(2, Math.floor(name.length / 3)) ? `did you mean ${nearest.name}? ` : '';
  return `${guess}${INVOCATION} --help lists the commands`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
