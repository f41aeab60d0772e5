import { NestOutboxError } from '@nest-outbox/core';

/**
 * An outbox row that cannot become a Kafka record (`problem` names the column, for example
 * `occurred_at is infinity` or `headers.x-num is not a string`). The row is parked at once
 * with this reason; the rest of its batch is sent.
 * @publicApi
 */
export class UnencodableEventError extends NestOutboxError {
  constructor(readonly problem: string) {
    super(
      `unencodable: ${problem}: correct the row's column (UPDATE the outbox row), then retry the parked event, or skip it`,
    );
  }
}
