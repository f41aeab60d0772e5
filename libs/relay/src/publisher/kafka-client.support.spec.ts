import type { RecordMetadata } from 'kafkajs';
import { classifyKafkaError } from '../errors/error-classifier';
import { UnacknowledgedPartitionError } from '../errors/unacknowledged-partition.error';
import { publishAcks } from './kafka-client.support';

const record = (topic: string) => ({ topic, key: 'k', value: '{}', headers: {} });
const meta = (topicName: string, partition: number, baseOffset: string) =>
  ({ topicName, partition, errorCode: 0, baseOffset }) as RecordMetadata;

describe('publishAcks', () => {
  it("gives each record its partition's base offset plus its index in that partition", () => {
    const records = [record('a'), record('a'), record('b'), record('a')];
    const partitions = [0, 1, 0, 0];
    const acks = publishAcks(records, (i) => partitions[i]!, [
      meta('a', 0, '10'),
      meta('a', 1, '7'),
      meta('b', 0, '3'),
    ]);
    expect(acks).toEqual([
      { partition: 0, offset: '10' },
      { partition: 1, offset: '7' },
      { partition: 0, offset: '3' },
      { partition: 0, offset: '11' },
    ]);
  });

  it('throws a transient UnacknowledgedPartitionError when a partition of the request has no ack (kafkajs after a leader moved)', () => {
    // kafkajs 2.2.4 resolves sendBatch without the partitions whose new leader had already
    // answered in an earlier try: those records were never written.
    const records = [record('a'), record('a')];
    let error: unknown;
    try {
      publishAcks(records, (i) => i, [meta('a', 0, '5')]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnacknowledgedPartitionError);
    expect((error as UnacknowledgedPartitionError).partitions).toEqual(['a[1]']);
    expect(classifyKafkaError(error)).toBe('transient');
  });
});
