import { PartitionOffsetTracker } from './partition-offset.tracker';

describe('PartitionOffsetTracker', () => {
  it('commits offset + 1 once a record has its final result', () => {
    const t = new PartitionOffsetTracker('t', 0);
    t.begin(5n);
    expect(t.committable()).toBeUndefined();
    t.finish(5n);
    expect(t.committable()).toBe(6n);
  });

  it('never commits past an earlier offset still in flight when a later one finishes first', () => {
    const t = new PartitionOffsetTracker('t', 0);
    t.begin(5n);
    t.begin(6n);
    t.begin(7n);
    t.finish(7n);
    t.finish(6n);
    expect(t.committable()).toBe(5n);
    t.committedUpTo(5n);
    expect(t.committable()).toBeUndefined();
    t.finish(5n);
    expect(t.committable()).toBe(8n);
  });

  it('keeps an offset blocked while an older delivery of the same offset still runs', () => {
    const t = new PartitionOffsetTracker('t', 0);
    t.begin(3n); // first delivery, still retrying
    t.begin(3n); // redelivered after a fetch restart
    t.finish(3n);
    t.begin(4n);
    t.finish(4n);
    expect(t.committable()).toBe(3n);
    t.finish(3n);
    expect(t.committable()).toBe(5n);
  });

  it('does not count an abandoned record as final', () => {
    const t = new PartitionOffsetTracker('t', 0);
    t.begin(9n);
    t.abandon(9n);
    expect(t.committable()).toBeUndefined();
  });

  it('commits nothing once the partition is revoked', () => {
    const t = new PartitionOffsetTracker('t', 0);
    t.begin(1n);
    t.finish(1n);
    t.live = false;
    expect(t.committable()).toBeUndefined();
  });

  it('never commits past the high watermark the broker last reported, whatever finished', () => {
    const t = new PartitionOffsetTracker('t', 0, () => 9n);
    t.begin(8n);
    t.begin(1003n); // a record whose offset the log does not have
    t.finish(8n);
    t.finish(1003n);
    expect(t.committable()).toBe(9n);
    t.committedUpTo(9n);
    expect(t.committable()).toBeUndefined();
  });

  it('never moves back below what it committed when a later fetch reports a lower log end', () => {
    let logEnd = 20n;
    const t = new PartitionOffsetTracker('t', 0, () => logEnd);
    t.begin(11n);
    t.finish(11n);
    t.committedUpTo(12n);
    logEnd = 5n;
    t.begin(12n);
    t.finish(12n);
    expect(t.committable()).toBeUndefined();
  });

  it('commits up to the log end once it grows past the finished records', () => {
    let logEnd = 3n;
    const t = new PartitionOffsetTracker('t', 0, () => logEnd);
    t.begin(2n);
    t.finish(2n);
    logEnd = 10n;
    expect(t.committable()).toBe(3n);
  });
});
