/** Figures for health and metrics. @publicApi */
export interface RelayStats {
  readonly pending: number;
  readonly parked: number;
  /** Age of the oldest unpublished event (parked included), 0 when there is none. */
  readonly oldestAgeMs: number;
}
