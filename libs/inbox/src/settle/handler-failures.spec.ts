import { waitWithHeartbeat } from './handler-failures';

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
