import { AdminCommand } from './commands/command';

/**
 * The admin CLI's help, built from the commands' own rows (commands/*.ts): the overview for
 * `--help`, one command's page for `<command> --help`, and the short forms errors end with.
 */

export const INVOCATION = 'npm run -s admin --';

/**
 * The environment the CLI reads, and nothing else (help.integration-spec.ts runs the CLI and checks both
 * ways): the operator's NATS identity and bus (libs/platform/src/nats-auth.ts, where unset the
 * ones `npm start` made for this checkout: admin-context.ts), search:seed's batching and retries,
 * and where `npm start` keeps the mail it took.
 */
export const SETTINGS: { name: string; text: string }[] = [
  { name: 'NATS_URL', text: 'the NATS server; unset: the one `npm start` runs for this checkout (.data/nats/url), else nats://127.0.0.1:4222' },
  { name: 'NATS_NKEY_SEED_FILE', text: "a file holding the operator identity's NKEY seed (SU…); with neither set: .data/nats/identities/operator.nk, made by `npm start`" },
  { name: 'NATS_NKEY_SEED', text: 'the seed itself, instead of a file' },
  { name: 'NODE_ENV', text: 'production: a seed is required (the bus is never open in production)' },
  { name: 'NATS_TLS_CA_FILE', text: "TLS to NATS: the CA of the server's certificate" },
  { name: 'NATS_TLS_CERT_FILE', text: 'a client certificate, when the server asks for one (with NATS_TLS_KEY_FILE)' },
  { name: 'NATS_TLS_KEY_FILE', text: "the client certificate's key" },
  { name: 'NATS_TLS_SERVER_NAME', text: "the name the server's certificate must carry" },
  { name: 'NATS_COALESCE_WRITES', text: 'off: each NATS flush written to the socket at once (docs/configuration.md)' },
  { name: 'SEED_CHUNK', text: 'search:seed: entities per request (default 2000)' },
  { name: 'SEED_PARALLEL', text: 'search:seed, ingest: requests in flight (default 4)' },
  { name: 'ADMIN_RETRIES', text: 'search:seed, ingest: times one chunk or batch is asked when it gets no answer (default 5)' },
  { name: 'ADMIN_NATS_CONNECT_MS', text: 'how long every command waits for NATS to answer its connection, in ms (default 5000)' },
  { name: 'MAIL_OUTBOX_DIR', text: "mail:outbox: the directory of `npm start`'s mail outbox (default .data/mail/outbox)" },
  { name: 'ADMIN_PROGRESS', text: '1: progress lines on stderr when it is not a terminal (one every 5 s), as search:seed and ingest draw on one' },
];

const SETTING_WIDTH = Math.max(...SETTINGS.map((s) => s.name.length)) + 2;

export function overview(commands: AdminCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `usage: ${INVOCATION} <command> [--flag value ...]`,
    '       (in a service image: node dist/apps/admin/src/main.js <command> ...)',
    '',
    'The operator side of the platform: workspaces, members, keys, credits, mailboxes, sequences,',
    'the search index. Prints one JSON object on stdout (listen: one a line as it goes); on error, a',
    'message on stderr and exit 1 (2 for a usage error). Progress of long jobs goes to stderr, only',
    'when it is a terminal.',
    '',
    'commands:',
    ...commands.flatMap((c) => wrap(c.summary ?? c.usage, 100 - width - 2).map((line, i) => `  ${(i === 0 ? c.name : '').padEnd(width)}${line}`)),
    '',
    'Every command asks the service that owns the data over NATS, as the operator identity (the',
    'gateway for workspaces, members and keys); the CLI opens no database and migrates nothing.',
    '',
    'settings (environment):',
    ...SETTINGS.flatMap((s) => wrap(s.text, 100 - SETTING_WIDTH - 2).map((line, i) => `  ${(i === 0 ? s.name : '').padEnd(SETTING_WIDTH)}${line}`)),
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
