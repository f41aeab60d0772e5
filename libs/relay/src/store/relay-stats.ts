/** Figures for health and metrics. @publicApi */
export interface RelayStats {
  readonly pending: number;
  readonly parked: number;
  /** Age of the oldest unpublished event (parked included), 0 when there is none. */
  readonly oldestAgeMs: number;
  /**
   * Age of the oldest unpublished event the relay can still publish (not parked, not held back
   * behind a parked event of its aggregate), 0 when none.
   */
  readonly oldestUnparkedAgeMs: number;
  /** Unpublished events an earlier publish of which started and never finished. */
  readonly suspects: number;
}

/** The outbox table's size and vacuum figures, from `pg_stat_user_tables`. @internal */
export interface OutboxTableStats {
  readonly sizeBytes: number;
  readonly deadTuples: number;
  readonly liveTuples: number;
  /** `Infinity` when the table was never vacuumed. */
  readonly secondsSinceVacuum: number;
}

/** The oldest transaction of the database that holds the xmin horizon. @internal */
export interface OldestTransaction {
  readonly pid: number;
  /** `pg_stat_activity.state`, e.g. `idle in transaction`. */
  readonly state: string | null;
  readonly ageSeconds: number;
}

/**
 * What the batch path tells the relay's figures (`RelayStatsService`): the events it published.
 * A port, so that the outcome does not depend on the health folder that reads the figures.
 * @internal
 */
export abstract class RelayFigures {
  abstract countPublished(count: number): void;
}
