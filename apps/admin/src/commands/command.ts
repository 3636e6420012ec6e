import { AdminContext } from '../admin-context';

/** One admin CLI command: its name, usage line, accepted flags, and what it does. */
export interface AdminCommand {
  name: string;
  usage: string;
  flags: string[];
  /** Flags that may be given more than once; their values reach `run` joined with commas. */
  repeatable?: string[];
  run(admin: AdminContext, flags: Record<string, string>): Promise<unknown>;
}
