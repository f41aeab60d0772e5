import type { OptionChecks } from '../option-checks';

/**
 * Thresholds of the back-pressure state (`RelayModule`'s `pressure` option). `critical` when
 * the backlog or the oldest age reaches `criticalPercent` of its budget, or the forecast to the
 * budget is at most `criticalForecastSeconds`; `warn` likewise; `ok` otherwise.
 * @publicApi
 */
export interface PressureOptions {
  /** Backlog budget: unpublished, unparked events. @default 100000 */
  readonly maxBacklog?: number;
  /** Age budget of the oldest unpublished, unparked event. @default 300000 (5 min) */
  readonly maxOldestAgeMs?: number;
  /** Share of a budget (percent) at which the state is `warn`. @default 50 */
  readonly warnPercent?: number;
  /** Share of a budget (percent) at which the state is `critical`. @default 90 */
  readonly criticalPercent?: number;
  /** Forecast to the budget at or below which the state is `warn`. @default 600 */
  readonly warnForecastSeconds?: number;
  /** Forecast to the budget at or below which the state is `critical`. @default 60 */
  readonly criticalForecastSeconds?: number;
  /** Window of samples the rates are drawn from. @default 60000 */
  readonly windowMs?: number;
}

/** `PressureOptions` with every default applied. @publicApi */
export type ResolvedPressureOptions = Required<PressureOptions>;

const DEFAULTS: ResolvedPressureOptions = {
  maxBacklog: 100_000,
  maxOldestAgeMs: 300_000,
  warnPercent: 50,
  criticalPercent: 90,
  warnForecastSeconds: 600,
  criticalForecastSeconds: 60,
  windowMs: 60_000,
};

/** Validates the `pressure` option (`undefined` gives the defaults). @publicApi */
export function resolvePressureOptions(
  check: OptionChecks,
  option: string,
  raw: unknown,
): ResolvedPressureOptions {
  if (raw === undefined) return DEFAULTS;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    check.fail(option, 'must be an object of thresholds, for example { maxOldestAgeMs: 60000 }');
  const p = raw as Record<keyof PressureOptions, unknown>;
  check.renamed(raw, { intervalMs: 'statsIntervalMs' });
  const int = (key: keyof PressureOptions, min = 1, max?: number) =>
    check.integer(`${option}.${key}`, p[key], DEFAULTS[key], { min, max });
  const resolved: ResolvedPressureOptions = {
    maxBacklog: int('maxBacklog'),
    maxOldestAgeMs: int('maxOldestAgeMs'),
    warnPercent: int('warnPercent', 1, 100),
    criticalPercent: int('criticalPercent', 1, 100),
    warnForecastSeconds: int('warnForecastSeconds', 0),
    criticalForecastSeconds: int('criticalForecastSeconds', 0),
    windowMs: int('windowMs', 10),
  };
  check.ordered(
    { option: `${option}.warnPercent`, value: resolved.warnPercent },
    { option: `${option}.criticalPercent`, value: resolved.criticalPercent },
  );
  check.ordered(
    { option: `${option}.criticalForecastSeconds`, value: resolved.criticalForecastSeconds },
    { option: `${option}.warnForecastSeconds`, value: resolved.warnForecastSeconds },
  );
  return resolved;
}
