import { backoffDelayMs, type BackoffPolicy } from '@nest-outbox/core/internal';
import { classifyKafkaError } from '../errors/error-classifier';
import type { ErrorKind } from '../errors/error-kind';
import type { ErrorClassifier } from '../options/relay-options.interface';
import type { ClaimedRow } from '../claim/claimed-batch';

export interface FailurePolicyOptions {
  readonly maxAttempts: number;
  readonly backoff: BackoffPolicy;
}

/** What to do with the head of a run whose publish failed. @internal */
export type FailureDecision =
  | {
      readonly action: 'park';
      /** The attempt that failed (1-based). */
      readonly attempt: number;
      readonly reason: 'permanent' | 'exhausted';
    }
  | {
      readonly action: 'retry';
      readonly attempt: number;
      /** False for throttling. */
      readonly counted: boolean;
      readonly delayMs: number;
    };

/**
 * A permanent error parks; a transient one backs off until `maxAttempts`, then parks, but only
 * while the broker acknowledges other sends (an outage parks nothing); throttling is not counted.
 * @internal
 */
export function decideFailure(
  attemptsSoFar: number,
  kind: ErrorKind,
  options: FailurePolicyOptions,
  random?: () => number,
  brokerAcksOthers = true,
): FailureDecision {
  const attempt = attemptsSoFar + (kind === 'throttled' ? 0 : 1);
  if (kind === 'permanent') return { action: 'park', attempt, reason: 'permanent' };
  if (kind === 'transient' && attempt >= options.maxAttempts) {
    if (brokerAcksOthers) return { action: 'park', attempt, reason: 'exhausted' };
    const delayMs = backoffDelayMs(options.maxAttempts, options.backoff, random);
    return { action: 'retry', attempt: attemptsSoFar, counted: false, delayMs };
  }
  return {
    action: 'retry',
    attempt,
    counted: kind !== 'throttled',
    delayMs: backoffDelayMs(Math.max(1, attempt), options.backoff, random),
  };
}

/** The user's classifier first (it sees the event, never the payload), else the built-in one. @internal */
export function classifyFailure(
  error: unknown,
  row: ClaimedRow,
  topic: string,
  classifier: ErrorClassifier | undefined,
): ErrorKind {
  const custom = classifier?.(error, {
    eventId: row.eventId,
    eventType: row.eventType,
    aggregateType: row.aggregateType,
    aggregateId: row.aggregateId,
    topic,
    attempt: row.attempts + 1,
  });
  return custom ?? classifyKafkaError(error);
}

/**
 * Whether a failed request is one event's fault (a permanent error, or a TypeError or
 * RangeError from building the request): then its events are retried apart to find it.
 * @internal
 */
export function isOneEventsFault(error: unknown, kind: ErrorKind): boolean {
  return error instanceof TypeError || error instanceof RangeError || kind === 'permanent';
}
