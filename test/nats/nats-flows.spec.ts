import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT, eventSubject, EventType, NATS_CALLS, NATS_DURABLES, NATS_IDENTITIES, natsDurablesOf, SERVICE_NAMES, ServiceName, SUBJECTS } from '@app/contracts';
import { consumerFilter, permissionsFor } from '@app/platform';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/spec\.ts$/.test(name) ? [readFileSync(path, 'utf8')] : [];
  });
}

/** The request subjects of other services an app's code names (SUBJECTS.<service>.<name>). */
function peersCalledBy(service: ServiceName): string[] {
  const subjects = SUBJECTS as unknown as Record<string, Record<string, string>>;
  const called = new Set<string>();
  for (const text of sources(join(ROOT, 'apps', service, 'src'))) {
    for (const [, group, name] of text.matchAll(/SUBJECTS\.(\w+)\.(\w+)/g)) {
      if (group !== service) called.add(subjects[group][name]);
    }
  }
  return [...called].sort();
}

/** The durable consumer names an app's code declares. */
function durablesOf(service: ServiceName): string[] {
  const names = new Set<string>();
  for (const text of sources(join(ROOT, 'apps', service, 'src'))) {
    for (const [, name] of text.matchAll(/durable(?:_name)?: '([^']+)'/g)) names.add(name);
    for (const [, name] of text.matchAll(/_DURABLE = '([^']+)'/g)) names.add(name);
  }
  return [...names].sort();
}

/**
 * The filter subject of each `@DurableConsumer` an app's code declares, as the consumer computes
 * it (consumerFilter): its one event type's subject, or the whole stream for several types or a
 * batch consumer.
 */
function durableFiltersOf(service: ServiceName): Record<string, string> {
  const texts = sources(join(ROOT, 'apps', service, 'src'));
  const constants = Object.fromEntries(texts.flatMap((text) => [...text.matchAll(/(\w+_DURABLE) = '([^']+)'/g)].map(([, name, value]) => [name, value])));
  const events = EVENT as Record<string, EventType>;
  const filters: Record<string, string> = {};
  for (const text of texts) {
    for (const [, literal, constant, types] of text.matchAll(/@DurableConsumer\(\{\s*durable: (?:'([^']+)'|(\w+)),\s*(?:types: \[([^\]]*)\])?/g)) {
      const durable = literal ?? constants[constant];
      filters[durable] = types === undefined
        ? consumerFilter({ batch: {} as never })
        : consumerFilter({ types: [...types.matchAll(/EVENT\.(\w+)/g)].map(([, name]) => events[name]) });
    }
  }
  return filters;
}

describe('NATS flows (libs/contracts/src/nats-flows.ts) are the flows of the code', () => {
  it.each(SERVICE_NAMES)('%s asks exactly the peers its code calls', (service) => {
    expect([...NATS_CALLS[service]].sort()).toEqual(peersCalledBy(service));
  });

  it.each(SERVICE_NAMES)('%s reads through exactly the durable consumers its code declares', (service) => {
    expect(natsDurablesOf(service).sort()).toEqual(durablesOf(service));
  });

  it.each(SERVICE_NAMES)('%s: each durable is filtered to the subject its code reads, which is what its identity may create it with', (service) => {
    expect(NATS_DURABLES[service]).toEqual(durableFiltersOf(service));
    const { publish } = permissionsFor(service);
    for (const [durable, filter] of Object.entries(NATS_DURABLES[service])) {
      expect(publish).toContain(`$JS.API.CONSUMER.CREATE.EVENTS.${durable}.${filter}`);
    }
  });

  it('only the operator may create, update, delete or purge a stream; a service creates its own durables with their filters only', () => {
    expect(permissionsFor('operator').publish).toContain('$JS.API.>');
    for (const service of SERVICE_NAMES) {
      const jsApi = permissionsFor(service).publish.filter((s) => s.startsWith('$JS.'));
      // the stream: looked up, never changed
      expect(jsApi.filter((s) => s.startsWith('$JS.API.STREAM.'))).toEqual(['$JS.API.STREAM.INFO.EVENTS']);
      expect(jsApi.filter((s) => /^\$JS\.API\.(>|\*)/.test(s) || s === '$JS.>')).toEqual([]);
      // consumers: its own durables only, created through the subject that names the durable and its
      // filter; no legacy durable create, no filter-less or ephemeral create, no delete
      const own = Object.entries(NATS_DURABLES[service]).flatMap(([durable, filter]) => [
        `$JS.API.CONSUMER.INFO.EVENTS.${durable}`,
        `$JS.API.CONSUMER.CREATE.EVENTS.${durable}.${filter}`,
        `$JS.API.CONSUMER.MSG.NEXT.EVENTS.${durable}`,
        `$JS.ACK.EVENTS.${durable}.>`,
      ]);
      expect(jsApi.filter((s) => !s.startsWith('$JS.API.STREAM.') && s !== '$JS.API.INFO').sort()).toEqual(own.sort());
    }
    expect(NATS_DURABLES.billing).toEqual({ billing: eventSubject(EVENT.workspaceCreated) });
  });

  it('a service subscribes to its own request subjects and inbox only; nobody but the operator and the gateway asks with a tenant context', () => {
    for (const identity of NATS_IDENTITIES) {
      const { publish, subscribe } = permissionsFor(identity);
      expect(subscribe).toContain(`_INBOX_${identity}.>`);
      expect(subscribe.filter((s) => s.startsWith('_INBOX'))).toEqual([`_INBOX_${identity}.>`]);
      expect(publish).not.toContain('>');
      if (identity !== 'operator') {
        expect(subscribe.filter((s) => !s.startsWith('_INBOX'))).toEqual([`${identity}.>`]);
      }
    }
    // the public API's subjects are asked by the gateway (and the operator) only
    const publicSubjects = [SUBJECTS.crm.leadsGet, SUBJECTS.crm.leadsList, SUBJECTS.search.query, SUBJECTS.sequences.enrollmentsCreate];
    for (const service of SERVICE_NAMES.filter((s) => s !== 'gateway')) {
      for (const subject of publicSubjects) expect(permissionsFor(service).publish).not.toContain(subject);
    }
    // workspaces, members and keys are the operator's to ask: no service may, not even the gateway of another replica
    for (const identity of NATS_IDENTITIES.filter((i) => i !== 'operator')) {
      for (const subject of Object.values(SUBJECTS.gateway)) expect(permissionsFor(identity).publish).not.toContain(subject);
      expect(permissionsFor(identity).publish).not.toContain('gateway.>');
    }
    expect(permissionsFor('operator').publish).toContain('gateway.>');
  });
});
