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
});
