import { EndpointSlots } from './endpoint-slots';

const candidates = (...endpoints: string[]) => endpoints.map((endpoint_id, i) => ({ id: `whd_${i}`, endpoint_id }));

describe('EndpointSlots', () => {
  it('takes at most the per-endpoint limit for one endpoint and the total for the process', () => {
    const slots = new EndpointSlots(3, 2);
    expect(slots.tryTake('we_a')).toBe(true);
    expect(slots.tryTake('we_a')).toBe(true);
    expect(slots.tryTake('we_a')).toBe(false);
    expect(slots.saturated()).toEqual(['we_a']);
    expect(slots.tryTake('we_b')).toBe(true);
    expect(slots.free).toBe(0);
    expect(slots.tryTake('we_c')).toBe(false);
  });

  it("picks the candidates each endpoint has room for, in order, up to the limit and the process's free slots", () => {
    const slots = new EndpointSlots(10, 2);
    slots.tryTake('we_a');
    const picked = slots.takeFor(candidates('we_a', 'we_a', 'we_b', 'we_b', 'we_b', 'we_c'), 4);
    expect(picked.map((c) => c.id)).toEqual(['whd_0', 'whd_2', 'whd_3', 'whd_5']);
    expect(slots.free).toBe(5);
    expect(slots.saturated().sort()).toEqual(['we_a', 'we_b']);
    expect(new EndpointSlots(2, 5).takeFor(candidates('we_a', 'we_b', 'we_c'), 10)).toHaveLength(2);
  });

  it("frees the endpoint's slot when the receiver answered and the process's when the outcome is committed", () => {
    const freed: string[] = [];
    const slots = new EndpointSlots(2, 1, () => freed.push('kick'));
    slots.tryTake('we_a');
    slots.freeEndpoint('we_a');
    expect(slots.tryTake('we_a')).toBe(true);
    expect(slots.free).toBe(0);
    slots.freeTotal();
    expect(slots.free).toBe(1);
    expect(freed).toEqual(['kick', 'kick']);
  });

  it('tells when the last attempt is done', async () => {
    const slots = new EndpointSlots(4, 4);
    await slots.whenIdle();
    slots.tryTake('we_a');
    slots.tryTake('we_b');
    let idle = false;
    const waiting = slots.whenIdle().then(() => (idle = true));
    slots.release('we_a');
    await Promise.resolve();
    expect(idle).toBe(false);
    slots.release('we_b');
    await waiting;
    expect(idle).toBe(true);
    expect(slots.saturated()).toEqual([]);
  });
});
