import type { InboxMetrics } from '../metrics/inbox.metrics';
import { GroupLag, type LagAdmin } from './group-lag';

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

/** A broker whose group committed `committed` and whose partitions end at `ends` (topic t). */
function broker(committed: Record<number, string>, ends: Record<number, string>): LagAdmin {
  return {
    fetchOffsets: (() =>
      Promise.resolve([
        {
          topic: 't',
          partitions: Object.entries(committed).map(([p, offset]) => ({
            partition: Number(p),
            offset,
            metadata: null,
          })),
        },
      ])) as unknown as LagAdmin['fetchOffsets'],
    fetchTopicOffsets: () =>
      Promise.resolve(
        Object.entries(ends).map(([p, high]) => ({
          partition: Number(p),
          offset: high,
          high,
          low: '0',
        })),
      ),
  };
}

describe('GroupLag', () => {
  it("reports the broker's end offset minus the group's committed offset, labelled with the group, skipping partitions without a commit", async () => {
    const { metrics, values } = gauges();
    let group = '';
    const lag = new GroupLag(metrics, () => group);
    await lag.refresh(broker({ 0: '4' }, { 0: '10' }));
    expect(values.size).toBe(0); // no group known yet (never joined, never crashed)
    group = 'orders-server';
    await lag.refresh(broker({ 0: '4', 1: '-1', 2: '7' }, { 0: '10', 1: '3', 2: '7' }));
    expect([...values]).toEqual([
      ['orders-server/t/0', 6],
      ['orders-server/t/2', 0],
    ]);
    await lag.refresh(broker({ 0: '8', 2: '7' }, { 0: '12', 2: '9' })); // no consumer needed
    expect(values.get('orders-server/t/0')).toBe(4);
    expect(values.get('orders-server/t/2')).toBe(2);
  });
});
