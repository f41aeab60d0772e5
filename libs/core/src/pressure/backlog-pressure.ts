import { forecastSecondsToBudget } from './backlog-forecast';
import { BacklogTrend, type BacklogRates, type BacklogSample } from './backlog-trend';
import type { ResolvedPressureOptions } from './pressure-options';
import { evaluatePressure, type PressureReading } from './pressure-state';

/** A reading with the rates it was drawn from. @publicApi */
export interface BacklogAssessment extends PressureReading {
  readonly rates: BacklogRates;
}

/**
 * Turns successive backlog samples into rates, a forecast and a pressure state. Holds no
 * connection and runs no query: its owner samples (one query per interval per process)
 * and calls `observe()`; commands read `latest` (no query per command).
 * @publicApi
 */
export class BacklogPressure {
  private readonly trend: BacklogTrend;
  private last: BacklogAssessment | undefined;

  constructor(readonly options: ResolvedPressureOptions) {
    this.trend = new BacklogTrend(options.windowMs);
  }

  /** Adds a sample and returns the new assessment. */
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

  /** The last assessment; undefined before the first sample. */
  get latest(): BacklogAssessment | undefined {
    return this.last;
  }
}
