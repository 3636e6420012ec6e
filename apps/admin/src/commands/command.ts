import { AdminContext } from '../admin-context';

/**
 * One admin CLI command: its name, usage line, accepted flags, and what it does. `usage`,
 * `summary` and `example` are the command's row in the help (`--help`, `<command> --help`, and
 * the usage printed with a usage error): a command is documented where it is defined.
 */
export interface AdminCommand {
  name: string;
  /** The flags, as `--flag <value>` (optional ones in brackets). */
  usage: string;
  /** One line: what it does, and which service must be running when it asks one over NATS. */
  summary?: string;
  /** A complete invocation, without the `npm run -s admin --` prefix. */
  example?: string;
  flags: string[];
  /** Flags that may be given more than once; their values reach `run` joined with commas. */
  repeatable?: string[];
  run(admin: AdminContext, flags: Record<string, string>): Promise<unknown>;
}
