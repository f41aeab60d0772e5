import type { BacklogAssessment } from './backlog-pressure';

/**
 * The pressure state as JSON (health details, the console, the relay's state row): no
 * `Infinity`; `unknown` when there is no figure, or none fresh.
 * @publicApi
 */
export interface PressureView {
  readonly state: 'ok' | 'warn' | 'critical' | 'unknown';
  /** Why it is not `ok`. */
  readonly reasons?: readonly string[];
  readonly [detail: string]: unknown;
}

/**
 * A backlog assessment as JSON: `forecastSeconds` is `null` while the backlog is not
 * approaching its budget (+Inf), `unknown` before the first sample.
 * @internal
 */
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
