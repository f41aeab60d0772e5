/**
 * The final result of one record. `paused` is the only one that is not final: its offset
 * is not committed and the partition waits at it. @publicApi
 */
export type InboxOutcome = 'applied' | 'duplicate' | 'stale' | 'dead-lettered' | 'paused';

/** Outcomes of a record handled inside an `InboxKafkaServer` batch (settled at its commit). @internal */
export type BatchedOutcome = 'applied' | 'duplicate' | 'stale' | 'aborted';

/** The outcome of one attempt that committed. @internal */
export type AttemptOutcome = 'applied' | 'duplicate' | 'stale';
