import { NestOutboxError } from '@nest-outbox/core';

/**
 * An event's `aggregate_version` is not the last applied version + 1 and the handler holds
 * newer versions until the missing one arrives (`versionCheck: 'hold'`). @publicApi
 */
export class InboxVersionGapError extends NestOutboxError {
  constructor(
    readonly aggregateId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      `aggregate ${aggregateId}: expected aggregate_version ${expectedVersion} but got ${actualVersion}; ` +
        "the event is held (versionCheck: 'hold') until the missing version is applied.",
    );
  }
}
