import { RequestContext } from '@app/contracts';
import { ServiceClient } from '@app/platform';
import { SearchConfig } from '../search.config';
import { CreditsService } from './credits.service';
import { LeasesRepository, TakeStatus } from './leases.repository';
import { LeasesService } from './leases.service';

const ctx = { workspace_id: 'ws_1', request_id: 'req_1' } as RequestContext;
const config = { peerTimeoutMs: 10_000, lease: { ttlMs: 60_000, idleMs: 5000, max: 500, sweepMs: 1000 } } as SearchConfig;

/** Our repository as a fake: every ref is taken, and each take's refs are recorded; `room()` is what the open leases have left after a take. */
function fakeRepo(takes: string[][], release?: Promise<void>, room: () => number = () => 1000, leases: string[] = []): LeasesRepository {
  return {
    take: async (_workspaceId: string, refs: string[]): Promise<{ statuses: TakeStatus[]; room: number }> => {
      takes.push([...refs]);
      await release;
      return { statuses: refs.map(() => 'taken'), room: room() };
    },
    insertPending: async (id: string) => void leases.push(`pending ${id}`),
    open: async (id: string, size: number) => {
      leases.push(`open ${id} ${size}`);
      return true;
    },
    giveUp: async (id: string) => void leases.push(`given up ${id}`),
    pagesOf: async () => [],
    markSettled: async (id: string) => void leases.push(`settled ${id}`),
  } as unknown as LeasesRepository;
}

/** Billing as a fake: each lease request recorded, granted `grant` credits (none: nothing granted). */
function fakeBilling(asked: { want: number }[], grant: number, answered?: Promise<void>): ServiceClient {
  return {
    ask: async (subject: string, _ctx: RequestContext, body: { want: number }) => {
      if (subject !== 'billing.credits.lease') return { settled: true };
      asked.push({ want: body.want });
      await answered;
      return grant > 0 ? { granted: grant, pool: 'plan', closed: false, expires_in_ms: 60_000 } : { granted: 0, pool: null, closed: false };
    },
  } as unknown as ServiceClient;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

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

  it('asks billing for the next lease ahead of need when a take leaves room for fewer pages than come in 250 ms; the pages do not wait for it', async () => {
    const asked: { want: number }[] = [];
    const leases: string[] = [];
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const service = new LeasesService(fakeRepo([], undefined, () => 3, leases), fakeBilling(asked, 40, answered), {} as CreditsService, config);
    // 16 pages at once: at least 16 pages a 250 ms, and 3 left in the open leases after their take
    await Promise.all(Array.from({ length: 16 }, (_, i) => service.charge(ctx, `search:p${i}`)));
    expect(asked).toHaveLength(1);
    expect(asked[0].want).toBeGreaterThanOrEqual(16);
    // more pages while that request is in flight: charged, and no second request
    await Promise.all(['search:q1', 'search:q2'].map((ref) => service.charge(ctx, ref)));
    expect(asked).toHaveLength(1);
    answer();
    await turn();
    await turn();
    expect(leases).toEqual([expect.stringMatching(/^pending lse_/), expect.stringMatching(/^open lse_\w+ 40$/)]);
  });

  it('asks nothing ahead while the open leases have room for more than 250 ms of pages', async () => {
    const asked: { want: number }[] = [];
    const service = new LeasesService(fakeRepo([], undefined, () => 400), fakeBilling(asked, 40), {} as CreditsService, config);
    await Promise.all(Array.from({ length: 16 }, (_, i) => service.charge(ctx, `search:p${i}`)));
    await turn();
    expect(asked).toEqual([]);
  });

  it('a lease asked ahead that billing grants nothing for is not asked again at every take (a workspace out of credits)', async () => {
    const asked: { want: number }[] = [];
    const leases: string[] = [];
    const service = new LeasesService(fakeRepo([], undefined, () => 0, leases), fakeBilling(asked, 0), {} as CreditsService, config);
    await service.charge(ctx, 'search:a');
    await turn();
    expect(asked).toHaveLength(1);
    // given up here and settled, so that billing closes the id too
    expect(leases).toEqual([expect.stringMatching(/^pending lse_/), expect.stringMatching(/^given up lse_/), expect.stringMatching(/^settled lse_/)]);
    for (const ref of ['search:b', 'search:c', 'search:d']) await service.charge(ctx, ref);
    await turn();
    expect(asked).toHaveLength(1);
  });
});
