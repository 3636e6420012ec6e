import pino, { Logger } from 'pino';

let root: Logger | undefined;

/** Structured JSON logs on stdout; every line names its service. */
export function rootLogger(service?: string): Logger {
  if (!root) {
    root = pino({ level: process.env.LOG_LEVEL || 'info', base: { service: service ?? process.env.SERVICE_NAME ?? 'mesh' } });
  }
  return root;
}
