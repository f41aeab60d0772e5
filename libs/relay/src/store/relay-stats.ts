/** Figures for health and metrics. @publicApi */
export interface RelayStats {
  readonly pending: number;
  readonly parked: number;
  /** Age of the oldest unpublished event (parked included), 0 when there is none. */
  readonly oldestAgeMs: number;
  /** Age of the oldest event the relay can publish (not parked nor behind a parked one), 0 when none. */
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

/** The events the batch path published, for `RelayStatsService` (a port: outcome/ does not import health/). @internal */
export abstract class RelayFigures {
  abstract countPublished(count: number): void;
}
