import { NestOutboxError } from '@nest-outbox/core';

/** A send resolved without an ack for some partitions (a leader moved mid-retry); retried (transient). @publicApi */
export class UnacknowledgedPartitionError extends NestOutboxError {
  constructor(readonly partitions: readonly string[]) {
    super(
      `RelayModule: the broker acknowledged no offset for ${partitions.join(', ')} (a leader moved during the send); ` +
        'those records are not marked published and are sent again with backoff',
    );
  }
}
