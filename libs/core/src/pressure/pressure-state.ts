import type { BacklogNow } from './backlog-forecast';
import type { ResolvedPressureOptions } from './pressure-options';

/** The back-pressure state: `critical` refuses non-critical commands. @publicApi */
export type PressureLevel = 'ok' | 'warn' | 'critical';

/** Numeric value of each level, as the `pressure_level` gauges export it. @publicApi */
export const PRESSURE_LEVEL_VALUE: Readonly<Record<PressureLevel, number>> = {
  ok: 0,
  warn: 1,
  critical: 2,
};

/** A sampler's verdict and the figures behind it. @publicApi */
export interface PressureReading extends BacklogNow {
  readonly state: PressureLevel;
  /** Why it is not `ok` (empty when it is): which figure crossed which threshold. */
  readonly reasons: readonly string[];
  /** Forecast seconds until the budget is reached (`Infinity`: not approaching it). */
  readonly forecastSeconds: number;
  /** When it was sampled (ISO 8601). */
  readonly sampledAt: string;
}

function crossed(
  now: BacklogNow,
  forecastSeconds: number,
  options: ResolvedPressureOptions,
  level: 'warn' | 'critical',
): string[] {
  const percent = options[`${level}Percent`];
  const forecastLimit = options[`${level}ForecastSeconds`];
  const reasons: string[] = [];
  const backlogLimit = (options.maxBacklog * percent) / 100;
  const ageLimitMs = (options.maxOldestAgeMs * percent) / 100;
  if (now.backlog >= backlogLimit) reasons.push(`backlog ${now.backlog} >= ${backlogLimit}`);
  if (now.oldestAgeMs >= ageLimitMs) {
    reasons.push(`oldest age ${Math.round(now.oldestAgeMs)} ms >= ${ageLimitMs} ms`);
  }
  if (forecastSeconds <= forecastLimit) {
    reasons.push(`forecast ${Math.round(forecastSeconds)} s to budget <= ${forecastLimit} s`);
  }
  return reasons;
}

/**
 * The pressure state of the figures against the thresholds (see `PressureOptions`).
 * @publicApi
 */
export function evaluatePressure(
  now: BacklogNow,
  forecastSeconds: number,
  options: ResolvedPressureOptions,
): { state: PressureLevel; reasons: string[] } {
  const critical = crossed(now, forecastSeconds, options, 'critical');
  if (critical.length > 0) return { state: 'critical', reasons: critical };
  const warn = crossed(now, forecastSeconds, options, 'warn');
  return { state: warn.length > 0 ? 'warn' : 'ok', reasons: warn };
}
