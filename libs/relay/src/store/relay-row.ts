/** One claimed outbox row, as the relay needs it (payload as the stored text). @internal */
export interface ClaimedRow {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly schemaVersion: number;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly aggregateVersion: string;
  /** ISO-8601, milliseconds, UTC: the `occurred_at` header as it is sent. */
  readonly occurredAt: string;
  /** `created_at` in epoch milliseconds (for the created-to-published delay). */
  readonly createdAtMs: number;
  readonly payload: string;
  readonly headers: Record<string, string>;
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

/** What happened to one row whose publish failed. @internal */
export interface FailureUpdate {
  readonly id: string;
  /** Counts as an attempt (false for throttling). */
  readonly counted: boolean;
  /** Park it (permanent error or attempts exhausted) instead of backing off. */
  readonly park: boolean;
  readonly delayMs: number;
  readonly kind: string;
  readonly error: string;
}

/** Rows handed back without a finished publish. `started` rows had their claim counted. @internal */
export interface ReleaseUpdate {
  readonly id: string;
  readonly started: boolean;
}
