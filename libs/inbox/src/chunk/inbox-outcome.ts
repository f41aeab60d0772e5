/**
 * The final result of one record. `paused` is the only one that is not final: its offset
 * is not committed and the partition waits at it. @publicApi
 */
export type InboxOutcome = 'applied' | 'duplicate' | 'stale' | 'dead-lettered' | 'paused';
