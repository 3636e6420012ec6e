import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { exitWhenBusClosedForGood, logConnectionStatus } from './nats';

/** A connection as logConnectionStatus reads it: no status event, and a close that ends as told. */
function closingConnection(): { nc: NatsConnection; close: (err?: Error) => void } {
  let close!: (err?: Error) => void;
  const closed = new Promise<void | Error>((resolve) => (close = resolve));
  const nc = { status: async function* () {}, closed: () => closed } as unknown as NatsConnection;
  return { nc, close };
}

function recordingLog(): { log: Logger; lines: [string, unknown, string][] } {
  const lines: [string, unknown, string][] = [];
  const at = (level: string) => (fields: unknown, message: string) => lines.push([level, fields, message]);
  const child = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') };
  return { log: { child: () => child } as unknown as Logger, lines };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a service connection closed for good', () => {
  let exit: jest.SpyInstance;
  beforeEach(() => {
    exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  });
  afterEach(() => exit.mockRestore());

  // the order matters: exitWhenBusClosedForGood is for the rest of the process (of this file)
  it('is logged, and the process goes on, where no service asked to exit (a module a test builds)', async () => {
    const { log, lines } = recordingLog();
    const { nc, close } = closingConnection();
    logConnectionStatus(nc, 'crm-rpc', log);
    close(new Error('protocol error'));
    await settle();
    expect(lines).toEqual([['error', { err: 'protocol error' }, 'nats: connection closed for good']]);
    expect(exit).not.toHaveBeenCalled();
  });

  it('ends a service started by startService (exit code 1, after a fatal line), and a close of its own does not', async () => {
    exitWhenBusClosedForGood();
    const own = closingConnection();
    const ownLog = recordingLog();
    logConnectionStatus(own.nc, 'crm', ownLog.log);
    own.close();
    await settle();
    expect(ownLog.lines.map(([level]) => level)).toEqual(['debug']);
    expect(exit).not.toHaveBeenCalled();

    const lost = closingConnection();
    const lostLog = recordingLog();
    logConnectionStatus(lost.nc, 'crm-rpc', lostLog.log);
    lost.close(new Error('protocol error'));
    await settle();
    expect(lostLog.lines).toEqual([['fatal', { err: 'protocol error' }, 'nats: connection closed for good: exiting, to be started again with a new one']]);
    expect(exit).toHaveBeenCalledWith(1);
  });
});
