import { LogRateLimit } from './log-rate-limit';

describe('LogRateLimit', () => {
  it('Given lines of one key within the window, then only the first logs and the next one after the window carries the count', () => {
    let now = 1_000;
    const limit = new LogRateLimit(10_000, () => now);
    expect(limit.take('a')).toEqual({ suppressed: 0 });
    expect(limit.take('a')).toBeUndefined();
    now += 9_999;
    expect(limit.take('a')).toBeUndefined();
    now += 1;
    expect(limit.take('a')).toEqual({ suppressed: 2 });
    expect(limit.take('a')).toBeUndefined();
  });

  it('Given two keys, then each has its own window', () => {
    const limit = new LogRateLimit(10_000, () => 0);
    expect(limit.take('a')).toEqual({ suppressed: 0 });
    expect(limit.take('b')).toEqual({ suppressed: 0 });
    expect(limit.take('a')).toBeUndefined();
  });
});
