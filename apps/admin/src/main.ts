import { ConfigError } from '@app/platform/config';
import { AdminContext } from './admin-context';
import { AdminError } from './admin-error';
import { parseFlags, rejectUnknown, required, UsageError } from './args';
import { COMMANDS } from './commands';
import { AdminCommand } from './commands/command';
import { commandHelp, INVOCATION, overview, requiredFlags, unknownCommandHint, usageLine } from './help';

const HELP = ['--help', '-h'];

/** What `--help` asked for: printed on stdout, exit 0. */
class HelpText {
  constructor(readonly text: string) {}
}

/** A usage error, with what the reader should see after it. */
class UsageFailure extends Error {
  constructor(message: string, readonly hint: string) {
    super(message);
  }
}

/** The admin CLI: one JSON object on stdout per command (listen: one a line as it goes); a message on stderr and exit 1 (2 for usage) on error. */
async function run(argv: string[]): Promise<unknown> {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageFailure('a command is required', overview(COMMANDS));
  if (HELP.includes(name) || name === 'help') {
    if (rest[0] === undefined) return new HelpText(overview(COMMANDS));
    return new HelpText(commandHelp(find(rest[0])));
  }
  const command = find(name);
  if (rest.some((arg) => HELP.includes(arg))) return new HelpText(commandHelp(command));
  try {
    const flags = parseFlags(rest, command.repeatable);
    rejectUnknown(flags, command.flags);
    for (const flag of requiredFlags(command)) required(flags, flag);
    const admin = new AdminContext();
    try {
      return await command.run(admin, flags);
    } finally {
      await admin.close();
    }
  } catch (err) {
    if (err instanceof UsageError) throw new UsageFailure(`${command.name}: ${err.message}`, `${usageLine(command)}\n${INVOCATION} ${command.name} --help for more`);
    throw err;
  }
}

function find(name: string): AdminCommand {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageFailure(`unknown command '${name}'`, unknownCommandHint(name, COMMANDS));
  return command;
}

run(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(result instanceof HelpText ? `${result.text}\n` : `${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (err: Error) => {
    if (err instanceof UsageFailure) {
      process.stderr.write(`error: ${err.message}\n${err.hint}\n`);
      process.exit(2);
    }
    const known = err instanceof AdminError || err instanceof ConfigError;
    process.stderr.write(`error: ${known ? err.message : `unexpected failure: ${err.message}`}\n`);
    process.exit(1);
  },
);
