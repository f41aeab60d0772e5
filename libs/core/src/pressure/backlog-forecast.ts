import type { BacklogRates } from './backlog-trend';

/** What the backlog may grow to before operators must act. @publicApi */
export interface BacklogBudget {
  /** Unpublished events. */
  readonly maxBacklog: number;
  /** Age of the oldest unpublished event. */
  readonly maxOldestAgeMs: number;
}

/** Where the backlog stands now. @publicApi */
export interface BacklogNow {
  readonly backlog: number;
  readonly oldestAgeMs: number;
}

/** Seconds until `value` grows to `limit` at `perSecond`; +Inf when it does not grow. */
function secondsUntil(value: number, limit: number, perSecond: number): number {
  if (value >= limit) return 0;
  return perSecond > 0 ? (limit - value) / perSecond : Number.POSITIVE_INFINITY;
}

/**
 * Forecast seconds until the backlog reaches its budget (count or age, whichever first).
 * `0` when it already has; `+Inf` while draining faster than filling (the backlog shrinks)
 * or when neither figure grows. The age forecast follows the head's age: it grows one
 * second per second while the relay publishes nothing (broker down) and stops growing
 * once the head moves.
 * @publicApi
 */
export function forecastSecondsToBudget(
  now: BacklogNow,
  rates: Pick<BacklogRates, 'backlogPerSecond' | 'agePerSecond'>,
  budget: BacklogBudget,
): number {
  const byCount = secondsUntil(now.backlog, budget.maxBacklog, rates.backlogPerSecond);
  const byAge = secondsUntil(
    now.oldestAgeMs / 1000,
    budget.maxOldestAgeMs / 1000,
    rates.agePerSecond,
  );
  if (byCount === 0 || byAge === 0) return 0;
  if (rates.backlogPerSecond < 0) return Number.POSITIVE_INFINITY;
  return Math.min(byCount, byAge);
}
