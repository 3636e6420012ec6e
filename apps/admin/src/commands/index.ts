import { AdminCommand } from './command';
import { creditCommands } from './credits';
import { eventCommands } from './events';
import { listCommands } from './lists';
import { listenCommands } from './listen';
import { mailCommands } from './mail';
import { noteCommands } from './notes';
import { webhookCommands } from './webhooks';
import { searchCommands } from './search';
import { sequenceCommands } from './sequences';
import { workspaceCommands } from './workspaces';

/** Every admin CLI command; a later capability adds its file here. */
export const COMMANDS: AdminCommand[] = [...workspaceCommands, ...noteCommands, ...listCommands, ...creditCommands, ...searchCommands, ...webhookCommands, ...sequenceCommands, ...eventCommands, ...listenCommands, ...mailCommands];
