import type { BacklogAssessment } from '@nest-outbox/core/internal';

/** The pressure state as health details and the console show it (JSON: no `Infinity`). @publicApi */
export interface PressureView {
  readonly state: 'ok' | 'warn' | 'critical' | 'unknown';
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
