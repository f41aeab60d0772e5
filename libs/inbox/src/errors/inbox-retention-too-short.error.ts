import { NestOutboxError } from '@nest-outbox/core';

/**
 * The inbox retention is shorter than the topic's retention plus the replay window: a
 * redelivered event could find its inbox row already pruned and be applied twice.
 * Thrown at start-up (unless `retention.onTooShort` is `'warn'`). @publicApi
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
        'a redelivered event could be applied twice. Raise retention.keepMs to at least ' +
        `${topicRetentionMs < 0 ? 'Infinity' : topicRetentionMs + replayWindowMs} ms, lower the topic's ` +
        "retention.ms, or set retention.onTooShort: 'warn' if you accept the risk.",
    );
  }
}

function describeMs(ms: number): string {
  return ms < 0 || !Number.isFinite(ms) ? 'infinite' : `${ms} ms`;
}
