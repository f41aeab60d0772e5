import type { RelayStats } from '../store/relay-stats';

/** Figures older than this many of their sampling intervals are stale: read as unknown. */
export const STALE_AFTER_INTERVALS = 2;

const FIGURES = ['pending', 'parked', 'suspects', 'oldestAgeMs', 'oldestUnparkedAgeMs'] as const;

/** Another relay's stats as its pressure row holds them; undefined when they are not whole. */
export function sharedStats(value: unknown): RelayStats | undefined {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const whole = FIGURES.every((k) => Number.isFinite(v[k]) && (v[k] as number) >= 0);
  return whole ? (v as unknown as RelayStats) : undefined;
}

/** A figure and when it was taken (`Date.now()` of its statement's start). */
export interface Taken<T> {
  readonly value: T;
  readonly atMs: number;
}

/** The backlog figures with their age: `stats` is null while they are stale or missing. @internal */
export interface RelayFiguresView {
  readonly stats: RelayStats | null;
  /** Seconds since the statement that gave them ran; null before the first. */
  readonly ageSeconds: number | null;
  readonly stale: boolean;
  /** The relay whose statement gave them (this one or another). */
  readonly sampledBy: string | null;
}

/** Milliseconds as seconds, to the millisecond. */
export const seconds = (ms: number) => Math.round(ms) / 1000;
