import { NestOutboxError } from '@nest-outbox/core';

/**
 * The inbox retention is shorter than the topic's retention plus the replay window: a
 * redelivered event could find its inbox row already pruned and be applied twice.
 * Thrown at start-up (unless `retention.onTooShort` is `'warn'`).
 * @publicApi
 */
export class InboxRetentionTooShortError extends NestOutboxError {
  constructor(
    readonly topic: string,
    readonly topicRetentionMs: number,
    readonly inboxRetentionMs: number,
    readonly replayWindowMs: number,
  ) {
    super(
      `InboxModule: inbox retention (${describeMs(inboxRetentionMs)}) is shorter than topic "${topic}" ` +
        `retention.ms (${describeMs(topicRetentionMs)}) plus the replay window (${describeMs(replayWindowMs)}); ` +
        'a redelivered event could be applied twice. Raise retention.inboxRetentionMs to at least ' +
        `${topicRetentionMs < 0 ? 'Infinity' : topicRetentionMs + replayWindowMs} ms, lower the topic's ` +
        "retention.ms, or set retention.onTooShort: 'warn' if you accept the risk.",
    );
  }
}

function describeMs(ms: number): string {
  return ms < 0 || !Number.isFinite(ms) ? 'infinite' : `${ms} ms`;
}

/**
 * A write did not touch the number of rows the handler expected (for example a projection
 * row whose version moved on). Thrown by `expectRowCount`; it rolls back the whole
 * transaction, the inbox row included, and is retried like any handler error.
 * @publicApi
 */
export class UnexpectedRowCountError extends NestOutboxError {
  constructor(
    readonly expected: number,
    readonly actual: number,
    readonly what: string,
  ) {
    super(
      `${what}: expected ${expected} row(s) to change but ${actual} did; the transaction (inbox row ` +
        'included) is rolled back. Check the WHERE clause (version condition) of the statement.',
    );
  }
}

/**
 * Thrown by a handler to say that retrying cannot help (for example a business rule the
 * event violates): the event is dead-lettered (or its partition paused) at once.
 * @publicApi
 */
export class InboxPermanentError extends NestOutboxError {}

/**
 * An event's `aggregate_version` is not the last applied version + 1 and the handler holds
 * newer versions until the missing one arrives (`versionCheck: 'hold'`).
 * @publicApi
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

/**
 * A handler decorator or the handler's module was used wrongly (for example
 * `@InboxHandler` without `InboxModule.forRoot()`).
 * @publicApi
 */
export class InboxMisuseError extends NestOutboxError {}
