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
