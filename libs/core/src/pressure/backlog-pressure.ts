import { BacklogTrend, type BacklogRates, type BacklogSample } from './backlog-trend';
import type { ResolvedPressureOptions } from './pressure-options';

/** The back-pressure state: `critical` refuses non-critical commands. @publicApi */
export type PressureLevel = 'ok' | 'warn' | 'critical';

/** Numeric value of each level, as the `pressure_level` gauges export it. @publicApi */
export const PRESSURE_LEVEL_VALUE: Readonly<Record<PressureLevel, number>> = {
  ok: 0,
  warn: 1,
  critical: 2,
};

interface BacklogNow {
  readonly backlog: number;
  readonly oldestAgeMs: number;
}

type BacklogBudget = Pick<ResolvedPressureOptions, 'maxBacklog' | 'maxOldestAgeMs'>;

/** A sampler's verdict, the figures behind it and the rates they were drawn from. @publicApi */
export interface BacklogAssessment extends BacklogNow {
  readonly state: PressureLevel;
  /** Which figure crossed which threshold (empty when `ok`). */
  readonly reasons: readonly string[];
  /** Forecast seconds until the budget is reached (`Infinity`: not approaching it). */
  readonly forecastSeconds: number;
  readonly sampledAt: string;
  readonly rates: BacklogRates;
}

function secondsUntil(value: number, limit: number, perSecond: number): number {
  if (value >= limit) return 0;
  return perSecond > 0 ? (limit - value) / perSecond : Number.POSITIVE_INFINITY;
}

/**
 * Forecast seconds until the backlog reaches its budget (count or age, whichever first): `0`
 * when it has, `+Inf` while draining or when neither grows. The head's age grows one second
 * per second while nothing is published (broker down).
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
  if (now.oldestAgeMs >= ageLimitMs)
    reasons.push(`oldest age ${Math.round(now.oldestAgeMs)} ms >= ${ageLimitMs} ms`);
  if (forecastSeconds <= forecastLimit)
    reasons.push(`forecast ${Math.round(forecastSeconds)} s to budget <= ${forecastLimit} s`);
  return reasons;
}

/** The pressure state of the figures against the thresholds. @publicApi */
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

/** Turns backlog samples into rates, a forecast and a state (runs no query). @publicApi */
export class BacklogPressure {
  private readonly trend: BacklogTrend;
  private last: BacklogAssessment | undefined;

  constructor(readonly options: ResolvedPressureOptions) {
    this.trend = new BacklogTrend(options.windowMs);
  }

  observe(sample: BacklogSample): BacklogAssessment {
    this.trend.add(sample);
    const rates = this.trend.rates();
    const now = { backlog: sample.backlog, oldestAgeMs: sample.oldestAgeMs };
    const forecastSeconds = forecastSecondsToBudget(now, rates, this.options);
    const { state, reasons } = evaluatePressure(now, forecastSeconds, this.options);
    this.last = {
      ...now,
      state,
      reasons,
      forecastSeconds,
      rates,
      sampledAt: new Date(sample.atMs).toISOString(),
    };
    return this.last;
  }

  get latest(): BacklogAssessment | undefined {
    return this.last;
  }
}

/** The pressure state as JSON (no `Infinity`); `unknown` without a fresh figure. @publicApi */
export interface PressureView {
  readonly state: PressureLevel | 'unknown';
  /** Why it is not `ok`. */
  readonly reasons?: readonly string[];
  readonly [detail: string]: unknown;
}

/** An assessment as JSON (`forecastSeconds` +Inf is `null`); `unknown` before the first. @internal */
export function pressureView(reading: BacklogAssessment | undefined): PressureView {
  if (!reading) return { state: 'unknown' };
  const finite = (n: number) => (Number.isFinite(n) ? Math.round(n * 100) / 100 : null);
  return {
    state: reading.state,
    reasons: reading.reasons,
    backlog: reading.backlog,
    oldestAgeMs: Math.round(reading.oldestAgeMs),
    forecastSeconds: finite(reading.forecastSeconds),
    backlogPerSecond: finite(reading.rates.backlogPerSecond),
    drainPerSecond: finite(reading.rates.drainPerSecond),
    sampledAt: reading.sampledAt,
  };
}
