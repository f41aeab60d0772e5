import { backoffDelay, waitWithHeartbeat } from './retry-backoff';

describe('backoffDelay', () => {
  it('doubles from the initial delay and stops at the cap', () => {
    const max = () => 1; // no jitter reduction
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, 100, 1000, max))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('never waits less than half the exponential delay (jitter)', () => {
    expect(backoffDelay(3, 100, 1000, () => 0)).toBe(200);
  });
});

describe('waitWithHeartbeat', () => {
  it('heartbeats between slices and stops when the heartbeat throws', async () => {
    let beats = 0;
    await expect(
      waitWithHeartbeat(
        50,
        () => (++beats === 2 ? Promise.reject(new Error('rebalancing')) : Promise.resolve()),
        10,
      ),
    ).rejects.toThrow('rebalancing');
    expect(beats).toBe(2);
  });
});
