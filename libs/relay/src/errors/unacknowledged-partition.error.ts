import { NestOutboxError } from '@nest-outbox/core';

/**
 * A send resolved without an acknowledgement for some of its partitions. kafkajs 2.2.x does
 * this when a partition's leader moves, during its own retries, to a broker that had already
 * answered for other partitions: it never sends that partition's records. Those records are
 * not marked published; the batch is retried with backoff (transient).
 * @publicApi
 */
export class UnacknowledgedPartitionError extends NestOutboxError {
  constructor(readonly partitions: readonly string[]) {
    super(
      `RelayModule: the broker acknowledged no offset for ${partitions.join(', ')} (a leader moved during the send); ` +
        'those records are not marked published and are sent again with backoff',
    );
  }
}
