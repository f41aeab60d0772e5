import type { BackoffOptions } from '../options/relay-options.interface';

/**
 * Delay before attempt `attempt + 1` after `attempt` failures (1-based): exponential from
 * `baseMs`, capped at `capMs`, with jitter so that failed events do not retry in lockstep.
 * @publicApi
 */
export function backoffDelayMs(
  attempt: number,
  options: Required<BackoffOptions>,
  random: () => number = Math.random,
): number {
  const exp = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  switch (options.jitter) {
    case 'none':
      return exp;
    case 'full':
      return Math.round(random() * exp);
    default:
      return Math.round(exp / 2 + (random() * exp) / 2);
  }
}
