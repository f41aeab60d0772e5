import type { InboxMetrics } from '../metrics/inbox.metrics';
import { GroupLag } from './group-lag';

/** A recording gauge pair: the last value per label set. */
function gauges() {
  const values = new Map<string, number>();
  const gauge = {
    set: (labels: Record<string, string>, value: number) =>
      values.set(`${labels.group}/${labels.topic}/${labels.partition}`, value),
  };
  const metrics = { lag: gauge, appliedUncommitted: gauge } as unknown as Pick<
    InboxMetrics,
    'lag' | 'appliedUncommitted'
  >;
  return { metrics, values };
}

const batch = (highWatermark: string, firstOffset: string) => ({
  topic: 't',
  partition: 0,
  highWatermark,
  firstOffset,
  lastOffset: firstOffset,
  offsetLag: '0',
  offsetLagLow: '0',
  batchSize: 1,
  duration: 0,
});

describe('GroupLag', () => {
  it("reports the partition's end minus the group's committed offset, labelled with the group", () => {
    const { metrics, values } = gauges();
    let group = '';
    const lag = new GroupLag(metrics, () => group);
    group = 'orders-server';
    lag.fetched(batch('10', '4')); // nothing committed yet: counted from the first offset fetched
    expect(values.get('orders-server/t/0')).toBe(6);
    lag.commitSent([{ topic: 't', partitions: [{ partition: 0, offset: '8' }] }]);
    expect(values.get('orders-server/t/0')).toBe(2);
    // Kafkajs' own figure (lag after the batch, 0 here) is not what it reports.
    lag.fetched({ ...batch('12', '8'), offsetLag: '0' });
    expect(values.get('orders-server/t/0')).toBe(4);
  });

  it('keeps the last figure when no fetch comes (a consumer crash-looping) instead of 0', () => {
    const { metrics, values } = gauges();
    const lag = new GroupLag(metrics, () => 'g');
    lag.fetched(batch('5', '0'));
    lag.commitSent([{ topic: 't', partitions: [{ partition: 0, offset: '1' }] }]);
    lag.commitSent([{ topic: 'other', partitions: [{ partition: 3, offset: '1' }] }]); // never fetched
    expect([...values]).toEqual([['g/t/0', 4]]);
  });
});
