import type { PublishRecord, RelayPublisher } from '../publisher/relay-publisher.interface';
import { BrokerAckWatch, sendPlace } from './broker-ack.watch';

const acked = (eventId: string, partition = 0, topic = 't') => ({ eventId, topic, partition });
const at = (partition: number, topic = 't') => ({ topic, partition });

describe('BrokerAckWatch', () => {
  it('says the partition takes other records when it acknowledged another send between two failures of the event', () => {
    const watch = new BrokerAckWatch();
    expect(watch.failed('e1', at(0))).toBe(false); // first failure seen here
    watch.acked([acked('e2', 0)]);
    expect(watch.failed('e1', at(0))).toBe(true);
  });

  it('says it does not when only other partitions took records (a partition still down while others recover)', () => {
    const watch = new BrokerAckWatch();
    expect(watch.failed('e1', at(3))).toBe(false);
    watch.acked([acked('e2', 0), acked('e3', 1), acked('e4', 3, 'other-topic')]);
    expect(watch.failed('e1', at(3))).toBe(false);
    watch.acked([acked('e5', 3)]);
    expect(watch.failed('e1', at(3))).toBe(true);
  });

  it('says it does not when nothing was acked between two failures (an outage)', () => {
    const watch = new BrokerAckWatch();
    watch.acked([acked('e0')]);
    expect(watch.failed('e1', at(0))).toBe(false);
    expect(watch.failed('e2', at(0))).toBe(false);
    expect(watch.failed('e1', at(0))).toBe(false);
  });

  it('never blames an event whose failure is not pinned on its partition (a request over several partitions, or no metadata)', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1', 'unplaced');
    watch.acked([acked('e2', 0)]);
    expect(watch.failed('e1', 'unplaced')).toBe(false);
  });

  it('falls back to broker-wide evidence for a publisher that does not report partitions', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1');
    watch.acked([acked('e2', 5)]);
    expect(watch.failed('e1')).toBe(true);
  });

  it('forgets an event once a send of it is acknowledged', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1', at(0));
    watch.acked([acked('e1', 0)]);
    expect(watch.failed('e1', at(0))).toBe(false);
  });

  it('reads the place from the publisher: the partition it pins, unplaced when it pins none, unknown when it does not say', () => {
    const record: PublishRecord = { topic: 'orders', key: 'k', value: '{}', headers: {} };
    const base = {} as RelayPublisher;
    expect(sendPlace(base, record)).toBe('unknown');
    expect(sendPlace({ ...base, failedPartition: () => 4 }, record)).toEqual({
      topic: 'orders',
      partition: 4,
    });
    expect(sendPlace({ ...base, failedPartition: () => undefined }, record)).toBe('unplaced');
  });
});
