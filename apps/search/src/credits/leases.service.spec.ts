import { RequestContext } from '@app/contracts';
import { ServiceClient } from '@app/platform';
import { SearchConfig } from '../search.config';
import { CreditsService } from './credits.service';
import { LeasesRepository, TakeStatus } from './leases.repository';
import { LeasesService } from './leases.service';

const ctx = { workspace_id: 'ws_1', request_id: 'req_1' } as RequestContext;
const config = { peerTimeoutMs: 10_000, lease: { ttlMs: 60_000, idleMs: 5000, max: 500, sweepMs: 1000 } } as SearchConfig;

/** Our repository as a fake: every ref is taken, and each take's refs are recorded. */
function fakeRepo(takes: string[][], release?: Promise<void>): LeasesRepository {
  return {
    take: async (_workspaceId: string, refs: string[]): Promise<TakeStatus[]> => {
      takes.push([...refs]);
      await release;
      return refs.map(() => 'taken');
    },
  } as unknown as LeasesRepository;
}

describe('LeasesService: charging pages against the lease', () => {
  it('charges the pages that come in one turn of the event loop by one take (a burst does not wait for its first page taken alone)', async () => {
    const takes: string[][] = [];
    const leases = new LeasesService(fakeRepo(takes), {} as ServiceClient, {} as CreditsService, config);
    const refs = Array.from({ length: 16 }, (_, i) => `search:req_${i}`);
    await Promise.all(refs.map((ref) => leases.charge(ctx, ref)));
    expect(takes).toEqual([refs]);
  });

  it('charges the pages that come while a take runs by the next one, together', async () => {
    const takes: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const leases = new LeasesService(fakeRepo(takes, held), {} as ServiceClient, {} as CreditsService, config);
    const first = leases.charge(ctx, 'search:a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(takes).toEqual([['search:a']]);
    const later = ['search:b', 'search:c', 'search:d'].map((ref) => leases.charge(ctx, ref));
    await new Promise((resolve) => setImmediate(resolve));
    expect(takes).toEqual([['search:a']]);
    release();
    await Promise.all([first, ...later]);
    expect(takes).toEqual([['search:a'], ['search:b', 'search:c', 'search:d']]);
  });
});
