import { LeaseCreditsResult, RequestContext } from '@app/contracts';
import { ServiceClient } from '@app/platform';
import { SearchConfig } from '../search.config';
import { CreditsService } from './credits.service';
import { LeasesRepository, TakeStatus } from './leases.repository';
import { LeasesService } from './leases.service';

const ctx = { workspace_id: 'ws_ahead', request_id: 'req_1', livemode: true, mode: 'live' } as unknown as RequestContext;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** The pages charged when each lease was asked of billing. */
const asked = (log: string[]) => log.filter((line) => line.startsWith('lease asked')).map((line) => Number(line.split(' ').pop()));

/**
 * Leases of one workspace in memory, as search_lease_take charges them (the first open lease with
 * room), and billing granting `grant` credits a lease, answered a loop turn later.
 */
function fakes(grant: number, credits = Number.MAX_SAFE_INTEGER) {
  const leases: { id: string; size: number; used: number; state: 'pending' | 'open' | 'closing' }[] = [];
  const log: string[] = [];
  let charged = 0;
  let left = credits;
  const repo = {
    take: async (_ws: string, refs: string[]): Promise<TakeStatus[]> => refs.map(() => {
      const lease = leases.find((l) => l.state === 'open' && l.used < l.size);
      if (!lease) {
        log.push(`none after ${charged}`);
        return 'none';
      }
      lease.used++;
      charged++;
      return 'taken';
    }),
    insertPending: async (id: string) => {
      leases.push({ id, size: 0, used: 0, state: 'pending' });
    },
    open: async (id: string, size: number) => {
      const lease = leases.find((l) => l.id === id && l.state === 'pending');
      if (!lease) return false;
      Object.assign(lease, { size, state: 'open' });
      return true;
    },
    giveUp: async (id: string) => {
      const lease = leases.find((l) => l.id === id);
      if (lease) lease.state = 'closing';
    },
    anyLive: async () => leases.some((l) => l.state === 'pending' || (l.state !== 'closing' && l.used < l.size)),
  } as unknown as LeasesRepository;
  const peers = {
    ask: async (_subject: string, _ctx: RequestContext, body: { lease_id: string }): Promise<LeaseCreditsResult | object> => {
      log.push(`lease asked after ${charged}`);
      await nextTurn();
      if (!('want' in body)) return {}; // a settle
      const granted = Math.min(grant, left);
      left -= granted;
      return { lease_id: body.lease_id, granted, pool: granted > 0 ? 'plan' : null, leased: granted, expires_in_ms: null };
    },
  } as unknown as ServiceClient;
  const config = { peerTimeoutMs: 2000, lease: { ttlMs: 60_000, idleMs: 5000, max: 500, sweepMs: 1000 } } as SearchConfig;
  const service = new LeasesService(repo, peers, {} as CreditsService, config);
  return { service, log, leases };
}

describe('LeasesService: the next lease asked for ahead (unit, fakes for the repository and billing)', () => {
  it('asks billing for the next lease once a quarter of the last one is left, so pages do not wait for it', async () => {
    const { service, log } = fakes(100);
    let page = 0;
    // 30 turns of 10 pages at once, as a served-page load brings them
    for (let turn = 0; turn < 30; turn++) {
      await Promise.all(Array.from({ length: 10 }, () => service.charge(ctx, `search:req_${page++}`)));
      await nextTurn();
    }
    // the first turn's pages found no lease and asked once; each later lease was asked in the turn
    // that charged the last one's 75th page (pages 71-80, then 171-180, ...), before it ran out
    expect(asked(log)).toEqual([0, 80, 180, 280]);
    expect(log.filter((line) => line.startsWith('none')).every((line) => line === 'none after 0')).toBe(true);
  });

  it('when the room seen is wrong (another replica charged it), a page finds none and asks, as without the hint', async () => {
    const { service, log, leases } = fakes(100);
    await service.charge(ctx, 'search:req_first');
    // another replica charged 90 of the lease this process opened
    leases[0].used += 90;
    for (let page = 0; page < 12; page++) await service.charge(ctx, `search:req_${page}`);
    expect(log).toEqual(['none after 0', 'lease asked after 0', 'none after 10', 'lease asked after 10']);
    expect(leases.map((l) => l.used)).toEqual([100, 3]);
  });

  it('asks ahead nothing more once billing has no credit to spare: the page that finds no room is refused 402', async () => {
    const { service, log } = fakes(100, 150);
    let page = 0;
    for (let turn = 0; turn < 15; turn++) {
      await Promise.all(Array.from({ length: 10 }, () => service.charge(ctx, `search:req_${page++}`)));
      await nextTurn();
    }
    await expect(service.charge(ctx, 'search:req_over')).rejects.toMatchObject({ code: 'insufficient_credits' });
    // 100, then the 50 left (asked ahead at page 80), then nothing (asked ahead at a quarter of those 50
    // left, page 140; and by the page over, 150): no page of the 150 waited for a lease after the first turn
    expect(asked(log)).toEqual([0, 80, 140, 150]);
    expect(log.filter((line) => line.startsWith('none') && line !== 'none after 0')).toEqual(['none after 150']);
  });
});
