import type { Logger } from '@nestjs/common';
import { logLevel, type LogEntry, type RecordMetadata } from 'kafkajs';
import { hasKafkaErrorType } from '../errors/error-classifier';
import { UnacknowledgedPartitionError } from '../errors/unacknowledged-partition.error';
import type { PublishAck, PublishRecord } from './relay-publisher.interface';

/** kafkajs' log lines through a Nest logger (errors and warnings; the rest at debug). @internal */
export function kafkaLogCreator(logger: Logger) {
  return () =>
    ({ level, log }: LogEntry) => {
      // We limit the idempotent producer's retries on purpose (our own backoff retries).
      if (log.message.startsWith('Limiting retries for the idempotent producer')) return;
      const text = `kafkajs ${log.message}${log.broker ? ` broker=${String(log.broker)}` : ''}`;
      if (level === logLevel.ERROR) logger.error(text);
      else if (level === logLevel.WARN) logger.warn(text);
      else logger.debug(text);
    };
}

/** A promise that rejects when `signal` aborts (with its reason), and its disposal. @internal */
export function rejectOnAbort(signal: AbortSignal): {
  promise: Promise<never>;
  dispose: () => void;
} {
  let dispose = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    const onAbort = () =>
      reject(signal.reason instanceof Error ? signal.reason : new Error('publish aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    dispose = () => signal.removeEventListener('abort', onAbort);
  });
  promise.catch(() => undefined);
  return { promise, dispose };
}

/** True when kafkajs lost (or could not open) its connection: the producer is dropped. @internal */
export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, i = 0; e && i < 5; i++) {
    const name = (e as { name?: unknown }).name;
    if (name === 'KafkaJSConnectionError' || name === 'KafkaJSConnectionClosedError') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Broker answers that the idempotent producer's sequence state is out of step (typically after
 * an outage lost an append's answer). kafkajs keeps its sequence numbers, so every later send is
 * refused the same way; only a new producer gets out of it.
 */
const PRODUCER_STATE_ERRORS = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/** Whether `error` (or a cause of it) says the producer must start again with a new id. @internal */
export function isProducerStateError(error: unknown): boolean {
  return hasKafkaErrorType(error, PRODUCER_STATE_ERRORS);
}

/**
 * One ack per record, in order: each partition's base offset plus the record's index among
 * that partition's records of the request (`partitionOf` is what the partitioner chose).
 * @throws UnacknowledgedPartitionError when the broker's answer has no offset for a record's
 *   partition (kafkajs can resolve so while leaders move): nothing of the request is acked
 * @internal
 */
export function publishAcks(
  records: readonly PublishRecord[],
  partitionOf: (index: number) => number,
  metadata: readonly RecordMetadata[],
): PublishAck[] {
  // Per topic, per partition: the next offset (the base offset, then one more per record).
  const next = new Map<string, Map<number, bigint>>();
  for (const m of metadata) {
    let partitions = next.get(m.topicName);
    if (!partitions) next.set(m.topicName, (partitions = new Map<number, bigint>()));
    partitions.set(m.partition, BigInt(m.baseOffset ?? '-1'));
  }
  const missing = new Set<string>();
  let topic: string | undefined;
  let offsets: Map<number, bigint> | undefined;
  const acks = records.map((r, i) => {
    if (r.topic !== topic) offsets = next.get((topic = r.topic));
    const partition = partitionOf(i);
    const offset = offsets?.get(partition) ?? -1n;
    if (offset < 0n) missing.add(`${r.topic}[${partition}]`);
    else offsets!.set(partition, offset + 1n);
    return { partition, offset: offset.toString() };
  });
  if (missing.size > 0) throw new UnacknowledgedPartitionError([...missing]);
  return acks;
}
