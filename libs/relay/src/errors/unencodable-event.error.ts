import { NestOutboxError } from '@nest-outbox/core';

/** An outbox row that cannot become a record (`problem` names the column); parked at once. @publicApi */
export class UnencodableEventError extends NestOutboxError {
  constructor(readonly problem: string) {
    super(
      `unencodable: ${problem}: correct the row's column (UPDATE the outbox row), then retry the parked event, or skip it`,
    );
  }
}
