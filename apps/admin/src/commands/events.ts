import type { DeadEvent, ReplayDeadEventsResult } from '@app/contracts/events';
import { natsDurablesOf } from '@app/contracts/nats-flows';
import { deadEventsSubject, replayEventsSubject, SERVICE_NAMES, type ServiceName } from '@app/contracts/subjects';
import { nonNegativeInt, oneOf, required, UsageError } from '../args';
import { AdminCommand } from './command';
import { operatorContext } from '../admin-context';

/** The services whose durable consumers keep a dead-letter store. */
const CONSUMING_SERVICES = SERVICE_NAMES.filter((s) => natsDurablesOf(s).length > 0) as ServiceName[];
const MAX_LIMIT = 1000;

export const eventCommands: AdminCommand[] = [
  {
    name: 'events:dead',
    usage: `[--service ${CONSUMING_SERVICES.join('|')}] [--limit <n>]`,
    summary: 'Events a consumer gave up on after its last delivery, with the last error, oldest first; services not answering under unreachable (asks each)',
    example: 'events:dead --service billing --limit 20',
    flags: ['service', 'limit'],
    async run(admin, flags) {
      const services = flags.service === undefined ? CONSUMING_SERVICES : [oneOf('service', flags.service, CONSUMING_SERVICES)];
      const limit = nonNegativeInt('limit', flags.limit, 100);
      if (limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be from 1 to ${MAX_LIMIT}`);
      const ask = (s: ServiceName) => admin.ask<{ data: DeadEvent[] }>(deadEventsSubject(s), operatorContext(), { limit });
      if (flags.service !== undefined) return ask(services[0]);
      // across services, one not running does not hide the others' stores: it is named instead
      const unreachable: { service: ServiceName; error: string }[] = [];
      const lists = await Promise.all(
        services.map((s) =>
          ask(s).catch((err: Error) => {
            unreachable.push({ service: s, error: err.message });
            return { data: [] };
          }),
        ),
      );
      const data = lists.flatMap((l) => l.data).sort((a, b) => a.first_failed_at.localeCompare(b.first_failed_at));
      return unreachable.length > 0 ? { data: data.slice(0, limit), unreachable } : { data: data.slice(0, limit) };
    },
  },
  {
    name: 'events:replay',
    usage: `--service ${CONSUMING_SERVICES.join('|')} (--event <evt_id> | --all true)`,
    summary: "Runs dead events through their consumer's handler again (once: processed ids still count); a success leaves the store (asks the service)",
    example: 'events:replay --service billing --event evt_...',
    flags: ['service', 'event', 'all'],
    async run(admin, flags) {
      const service = oneOf('service', required(flags, 'service'), CONSUMING_SERVICES);
      if (flags.all !== undefined && flags.all !== 'true') throw new UsageError('--all takes the value true');
      if ((flags.event === undefined) === (flags.all === undefined)) throw new UsageError('give either --event <evt_id> or --all true');
      const body = flags.all === 'true' ? { all: true } : { event_id: flags.event };
      return admin.ask<ReplayDeadEventsResult>(replayEventsSubject(service), operatorContext(), body);
    },
  },
];
