import 'reflect-metadata';
import { AdminError } from '../../gateway/src/workspaces/workspaces.admin';
import { AdminContext } from './admin-context';
import { parseFlags, rejectUnknown, UsageError } from './args';
import { COMMANDS } from './commands';

const USAGE = [
  'usage: npm run -s admin -- <command> [options]',
  ...COMMANDS.map((c) => `  ${c.name.padEnd(16)} ${c.usage}`),
].join('\n');

/** The admin CLI: one JSON object on stdout per command; a message on stderr and exit 1 (2 for usage) on error. */
async function run(argv: string[]): Promise<unknown> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help') throw new UsageError('a command is required');
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command '${name}'`);
  const flags = parseFlags(rest, command.repeatable);
  rejectUnknown(flags, command.flags);
  const admin = await AdminContext.open();
  try {
    return await command.run(admin, flags);
  } finally {
    await admin.close();
  }
}

run(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (err: Error) => {
    const usage = err instanceof UsageError ? `\n${USAGE}` : '';
    const known = err instanceof UsageError || err instanceof AdminError;
    process.stderr.write(`error: ${known ? err.message : `unexpected failure: ${err.message}`}${usage}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
