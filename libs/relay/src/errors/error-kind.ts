/**
 * Outcome of classifying a publish error. `transient` is retried with backoff and counts as
 * an attempt; `throttled` is retried with backoff and does not count; `permanent` parks the
 * event at once.
 * @publicApi
 */
export type ErrorKind = 'transient' | 'throttled' | 'permanent';
