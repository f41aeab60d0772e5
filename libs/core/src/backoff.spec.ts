import { Backoff, backoffDelayMs } from './backoff';

const policy = { baseMs: 100, capMs: 1000 };

describe('backoffDelayMs', () => {
  it('doubles from the base and stops at the cap (upper end of the jitter)', () => {
    expect([1, 2, 3, 4, 5, 50].map((a) => backoffDelayMs(a, policy, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('keeps at least half of the delay and draws the other half (equal jitter)', () => {
    expect(backoffDelayMs(5, policy, () => 0)).toBe(500);
    expect(backoffDelayMs(5, policy, () => 0.5)).toBe(750);
    expect(backoffDelayMs(3, policy, () => 0)).toBe(200);
  });

  it('treats attempt 0 and huge attempts as the base and the cap (no overflow to Infinity)', () => {
    expect(backoffDelayMs(0, policy, () => 1)).toBe(100);
    expect(backoffDelayMs(10_000, policy, () => 1)).toBe(1000);
  });
});

describe('Backoff', () => {
  it('grows with each failure and starts from the base again after a reset', () => {
    const backoff = new Backoff(policy, () => 1);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([100, 200, 400]);
    expect(backoff.attempts).toBe(3);
    backoff.reset();
    expect(backoff.attempts).toBe(0);
    expect(backoff.next()).toBe(100);
  });
});
