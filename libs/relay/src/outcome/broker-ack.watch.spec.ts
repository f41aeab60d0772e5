import type { PublishRecord, RelayPublisher } from '../publisher/relay-publisher.interface';
import { BrokerAckWatch, sendPlace } from './broker-ack.watch';

const acked = (eventId: string, partition = 0, topic = 't') => ({ eventId, topic, partition });
type Acked = ReturnType<typeof acked>;
/** Enters one acknowledged send of `events`, as the batch processor does (items and their acks). */
const ack = (watch: BrokerAckWatch, events: Acked[]) =>
  watch.acked(
    events.map(({ eventId, topic }) => ({ row: { eventId }, record: { topic } })),
    events.map(({ partition }) => ({ partition })),
  );
const at = (partition: number, topic = 't') => ({ topic, partition });

describe('BrokerAckWatch', () => {
  it('says the partition takes other records when it acknowledged another send between two failures of the event', () => {
    const watch = new BrokerAckWatch();
    expect(watch.failed('e1', at(0))).toBe(false); // first failure seen here
    ack(watch, [acked('e2', 0)]);
    expect(watch.failed('e1', at(0))).toBe(true);
  });

  it('says it does not when only other partitions took records (a partition still down while others recover)', () => {
    const watch = new BrokerAckWatch();
    expect(watch.failed('e1', at(3))).toBe(false);
    ack(watch, [acked('e2', 0), acked('e3', 1), acked('e4', 3, 'other-topic')]);
    expect(watch.failed('e1', at(3))).toBe(false);
    ack(watch, [acked('e5', 3)]);
    expect(watch.failed('e1', at(3))).toBe(true);
  });

  it('says it does not when nothing was acked between two failures (an outage)', () => {
    const watch = new BrokerAckWatch();
    ack(watch, [acked('e0')]);
    expect(watch.failed('e1', at(0))).toBe(false);
    expect(watch.failed('e2', at(0))).toBe(false);
    expect(watch.failed('e1', at(0))).toBe(false);
  });

  it('never blames an event whose failure is not pinned on its partition (a request over several partitions, or no metadata)', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1', 'unplaced');
    ack(watch, [acked('e2', 0)]);
    expect(watch.failed('e1', 'unplaced')).toBe(false);
  });

  it('falls back to broker-wide evidence for a publisher that does not report partitions', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1');
    ack(watch, [acked('e2', 5)]);
    expect(watch.failed('e1')).toBe(true);
  });

  it('forgets an event once a send of it is acknowledged', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1', at(0));
    ack(watch, [acked('e1', 0)]);
    expect(watch.failed('e1', at(0))).toBe(false);
  });

  it('counts every partition of a send, runs of one partition and partitions seen again after another alike', () => {
    const watch = new BrokerAckWatch();
    for (const p of [0, 1, 2]) expect(watch.failed(`f${p}`, at(p))).toBe(false);
    expect(watch.failed('g', at(2, 'other'))).toBe(false);
    ack(watch, [
      acked('e1', 0),
      acked('e2', 0),
      acked('e3', 1),
      acked('e4', 0),
      acked('e5', 2, 'other'),
    ]);
    expect(watch.failed('f0', at(0))).toBe(true);
    expect(watch.failed('f1', at(1))).toBe(true);
    expect(watch.failed('f2', at(2))).toBe(false); // topic t's partition 2 took nothing
    expect(watch.failed('g', at(2, 'other'))).toBe(true);
  });

  it('forgets every failed event of a send once it is acknowledged, also when they share a partition', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1', at(0));
    watch.failed('e2', at(0));
    ack(watch, [acked('e1', 0), acked('e2', 0)]);
    expect(watch.failed('e1', at(0))).toBe(false);
    expect(watch.failed('e2', at(0))).toBe(false);
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
