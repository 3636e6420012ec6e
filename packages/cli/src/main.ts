#!/usr/bin/env node
import { ApiError, DEFAULT_BASE_URL, LeadIntelClient } from '@lead-intelligence/client';
import { flag, parseArgs, ParsedArgs, UsageError } from './args';
import { Lim } from './context';
import { listen } from './listen';
import { deliveries, events } from './resources';
import { trigger } from './trigger';

const VERSION = '0.1.0';
const GLOBAL_FLAGS = ['api-key', 'api-base'] as const;
const SWITCHES = new Set(['help', 'version']);

const USAGE = `lim ${VERSION}: the Lead Intelligence API from a terminal, with nothing but an API key

Usage: lim <command> [flags]

  listen --forward-to <url> [--events <type,type>]
      The workspace's events in the key's mode as they are stored, each forwarded as its exact
      body to <url>, signed (Service-Signature) with a whsec_ secret printed on the first line;
      then one JSON line per event with the receiver's status. Resumes after the last event
      forwarded when the API restarts. Ctrl-C stops it.
  trigger <type> [--endpoint <we_id>]
      A sample event of <type> sent now to the workspace's enabled webhook endpoints that
      receive it (POST /webhook_endpoints/{id}/test); a line per endpoint with its status.
  trigger <type> --forward-to <url> [--secret <whsec_...>]
      The sample straight to a local receiver, signed with --secret (or LIM_WEBHOOK_SECRET, or a
      fresh secret printed first).
  events list [--type <type>] [--limit <n>] [--starting-after <cursor>]
  events get <evt_id>
  deliveries list --endpoint <we_id> [--limit <n>] [--starting-after <cursor>]
  deliveries retry <whd_id> [--endpoint <we_id>]
      JSON as the API answers it.

Every command takes:
  --api-key <key>    svc_live_... or svc_test_... (default: LIM_API_KEY)
  --api-base <url>   the API root (default: LIM_API_BASE, else ${DEFAULT_BASE_URL})

Exit codes: 0 done, 1 the API refused or a receiver failed, 2 a usage error.
`;

type Command = (lim: Lim, args: ParsedArgs, globals: readonly string[]) => Promise<number>;
const COMMANDS: Record<string, Command> = { listen, trigger, events, deliveries };

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, SWITCHES);
  if (args.flags.has('version')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const [name, ...rest] = args.positionals;
  if (args.flags.has('help') || name === undefined || name === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command ${name}`);
  const apiKey = flag(args, 'api-key') ?? process.env.LIM_API_KEY;
  if (!apiKey) throw new UsageError('an API key is needed: --api-key svc_... or LIM_API_KEY');
  const apiBase = (flag(args, 'api-base') ?? process.env.LIM_API_BASE ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(apiBase)) throw new UsageError('--api-base must be an http:// or https:// URL, such as http://127.0.0.1:3000/api/v1');
  const lim: Lim = {
    client: new LeadIntelClient({ apiKey, baseUrl: apiBase }),
    apiBase,
    livemode: !apiKey.startsWith('svc_test_'),
    line: (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
    json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    note: (text) => process.stderr.write(`lim: ${text}\n`),
  };
  return command(lim, { positionals: rest, flags: args.flags }, GLOBAL_FLAGS);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\nRun lim --help for usage.\n`);
      process.exitCode = 2;
      return;
    }
    if (err instanceof ApiError) {
      const requestId = err.requestId ? ` (request ${err.requestId})` : '';
      const param = err.body?.error?.param ? ` [${err.body.error.param}]` : '';
      process.stderr.write(`error: ${err.status} ${err.code ?? 'error'}${param}: ${err.body?.error?.message ?? err.message}${requestId}\n`);
    } else {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message;
      process.stderr.write(`error: ${(err as Error).message}${why ? ` (${why})` : ''}\n`);
    }
    process.exitCode = 1;
  },
);
