import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NATS_CALLS, NATS_DURABLES, NATS_IDENTITIES, SERVICE_NAMES, ServiceName, SUBJECTS } from '@app/contracts';
import { permissionsFor } from '@app/platform';

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

describe('NATS flows (libs/contracts/src/nats-flows.ts) are the flows of the code', () => {
  it.each(SERVICE_NAMES)('%s asks exactly the peers its code calls', (service) => {
    expect([...NATS_CALLS[service]].sort()).toEqual(peersCalledBy(service));
  });

  it.each(SERVICE_NAMES)('%s reads through exactly the durable consumers its code declares', (service) => {
    expect([...NATS_DURABLES[service]].sort()).toEqual(durablesOf(service));
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
