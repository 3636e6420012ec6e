import { afterAttempt, failureCountChanges, MAX_ATTEMPTS, SAMPLE_MAX_ATTEMPTS } from './delivery-rules';

describe('afterAttempt', () => {
  it('succeeds, fails for good after the last attempt, or is due again after the delay', () => {
    expect(afterAttempt(1, true)).toEqual({ status: 'succeeded', delayMs: 0 });
    expect(afterAttempt(MAX_ATTEMPTS, false)).toEqual({ status: 'failed', delayMs: 0 });
    const retry = afterAttempt(1, false);
    expect(retry.status).toBe('pending');
    expect(retry.delayMs).toBeGreaterThanOrEqual(54_000);
    expect(retry.delayMs).toBeLessThanOrEqual(66_000);
  });

  it('a sample gets two attempts: one retry on the schedule\'s first delay, then it has failed for good', () => {
    expect(SAMPLE_MAX_ATTEMPTS).toBe(2);
    expect(afterAttempt(1, false, SAMPLE_MAX_ATTEMPTS)).toMatchObject({ status: 'pending' });
    expect(afterAttempt(2, false, SAMPLE_MAX_ATTEMPTS)).toEqual({ status: 'failed', delayMs: 0 });
    // a retry asked for after that is one attempt more, never the rest of the schedule
    expect(afterAttempt(3, false, SAMPLE_MAX_ATTEMPTS)).toEqual({ status: 'failed', delayMs: 0 });
  });
});

describe('failureCountChanges', () => {
  const last = MAX_ATTEMPTS;
  it.each([
    ['a retry still to come changes nothing', [{ endpointId: 'we_a', attempt: 1, ok: false }], []],
    ['each delivery failed for good adds one', [{ endpointId: 'we_a', attempt: last, ok: false }, { endpointId: 'we_a', attempt: last, ok: false }], [{ endpointId: 'we_a', reset: false, add: 2 }]],
    ['a success restarts the count', [{ endpointId: 'we_a', attempt: last, ok: false }, { endpointId: 'we_a', attempt: 2, ok: true }], [{ endpointId: 'we_a', reset: true, add: 0 }]],
    ['failures after a success count from it', [{ endpointId: 'we_a', attempt: 1, ok: true }, { endpointId: 'we_a', attempt: last, ok: false }], [{ endpointId: 'we_a', reset: true, add: 1 }]],
    ['a sample failed for good after its last attempt adds one', [{ endpointId: 'we_a', attempt: 2, ok: false, maxAttempts: 2 }], [{ endpointId: 'we_a', reset: false, add: 1 }]],
    ['endpoints apart', [{ endpointId: 'we_a', attempt: 1, ok: true }, { endpointId: 'we_b', attempt: last, ok: false }], [{ endpointId: 'we_a', reset: true, add: 0 }, { endpointId: 'we_b', reset: false, add: 1 }]],
  ])('%s', (_name, attempts, changes) => {
    expect(failureCountChanges(attempts)).toEqual(changes);
  });
});
