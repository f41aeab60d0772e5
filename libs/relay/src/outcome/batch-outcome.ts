/** What the relay's batches came to since its start (for tests and health). @publicApi */
export interface RelayTotals {
  /** Events published and marked. */
  published: number;
  /** Events published whose mark the lost lease refused (another relay publishes them again). */
  leaseLost: number;
  /** Failed heads, backing off or parked. */
  failed: number;
  /** Events handed back unpublished. */
  released: number;
  /** Batches processed. */
  batches: number;
}

export type BatchOutcome = Omit<RelayTotals, 'batches'>;

export function emptyOutcome(): BatchOutcome {
  return { published: 0, leaseLost: 0, failed: 0, released: 0 };
}
