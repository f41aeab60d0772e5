import type { BacklogAssessment } from '@nest-outbox/core/internal';
import type { HealthIndicatorResult } from '@nestjs/terminus';

/**
 * The outbox's pressure state as a terminus indicator's details: always `up` (a critical
 * state refuses non-critical commands; it is not an outage). `forecastSeconds` is `null`
 * while the backlog is not approaching its budget (+Inf).
 */
export function pressureDetails(
  reading: BacklogAssessment | undefined,
): HealthIndicatorResult[string] {
  if (!reading) return { status: 'up', state: 'unknown' };
  return {
    status: 'up',
    state: reading.state,
    reasons: reading.reasons,
    backlog: reading.backlog,
    oldestAgeMs: Math.round(reading.oldestAgeMs),
    forecastSeconds: Number.isFinite(reading.forecastSeconds)
      ? Math.round(reading.forecastSeconds)
      : null,
    sampledAt: reading.sampledAt,
  };
}
