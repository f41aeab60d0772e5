import { NestOutboxError } from '@nest-outbox/core';

/**
 * A send resolved without an acknowledgement for some of its partitions (kafkajs 2.2.x, when a
 * leader moves mid-retry to a broker that already answered). Those records are not marked
 * published; the batch is retried with backoff (transient).
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
