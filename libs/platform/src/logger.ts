import pino, { Logger } from 'pino';
import { logCorrelation } from './log-context';

let root: Logger | undefined;

/**
 * Structured JSON logs on stdout; every line names its service and, logged inside a unit of work
 * (log-context.ts), its `trace_id` and `request_id`. An error goes in `err` as an Error, so its
 * stack is logged (pino's serializer); clients never see it.
 */
export function rootLogger(service?: string): Logger {
  if (!root) {
    root = pino({ level: process.env.LOG_LEVEL || 'info', base: { service: service ?? process.env.SERVICE_NAME ?? 'mesh' }, mixin: logCorrelation });
  }
  return root;
}
