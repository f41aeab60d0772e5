/** One claimed outbox row, as the relay needs it (payload as the stored text). @internal */
export interface ClaimedRow {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly schemaVersion: number;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly aggregateVersion: string;
  /** `occurred_at` in epoch milliseconds (rounded down; any era, infinities included). */
  readonly occurredAtMs: number;
  /** `created_at` in epoch milliseconds. */
  readonly createdAtMs: number;
  readonly payload: string;
  /** The `headers` column as stored (the encoding checks its shape). */
  readonly headers: unknown;
  readonly topic: string | null;
  readonly attempts: number;
  /** True when an earlier publish of this row started and never finished: publish it alone. */
  readonly suspect: boolean;
}

/** A claimed batch: the lease token fences every later write. @internal */
export interface ClaimedBatch {
  readonly leaseToken: string;
  /** Local clock time at which the lease surely has expired (conservative). */
  readonly leaseDeadline: number;
  readonly rows: readonly ClaimedRow[];
  /** Events parked during the claim because their publishes kept killing the relay. */
  readonly crashLoopParked: readonly { eventId: string; aggregateId: string; eventType: string }[];
}

/** Settings of one claim. @internal */
export interface ClaimSettings {
  readonly batchSize: number;
  /** Longest run of one aggregate per claim (a batch covers about batchSize / runLimit aggregates). */
  readonly runLimit: number;
  readonly leaseMs: number;
  readonly crashLoopThreshold: number;
  /** Pending rows the id-order window reads. @default 2 * batchSize */
  readonly windowRows?: number;
  /** Aggregates one skip scan reads at most. @default batchSize */
  readonly scanAggregates?: number;
}
