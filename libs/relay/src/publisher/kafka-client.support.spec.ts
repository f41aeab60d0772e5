import type { RecordMetadata } from 'kafkajs';
import { classifyKafkaError } from '../errors/error-classifier';
import { UnacknowledgedPartitionError } from '../errors/unacknowledged-partition.error';
import { isProducerStateError, publishAcks } from './kafka-client.support';

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

describe('isProducerStateError', () => {
  const protocol = (type: string) => Object.assign(new Error(type), { type });

  it('asks for a new producer when the broker refuses its sequence or id, wrapped or not', () => {
    expect(isProducerStateError(protocol('OUT_OF_ORDER_SEQUENCE_NUMBER'))).toBe(true);
    expect(isProducerStateError(protocol('UNKNOWN_PRODUCER_ID'))).toBe(true);
    const retriesExceeded = Object.assign(new Error('retries exceeded'), {
      cause: protocol('INVALID_PRODUCER_EPOCH'),
    });
    expect(isProducerStateError(retriesExceeded)).toBe(true);
  });

  it('keeps the producer for other failures (a new one would not help)', () => {
    expect(isProducerStateError(protocol('NOT_ENOUGH_REPLICAS'))).toBe(false);
    expect(isProducerStateError(protocol('MESSAGE_TOO_LARGE'))).toBe(false);
    expect(isProducerStateError(new Error('timeout'))).toBe(false);
    expect(isProducerStateError(undefined)).toBe(false);
  });
});
