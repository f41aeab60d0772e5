/** `transient`: retried, counted; `throttled`: retried, not counted; `permanent`: parked at once. @publicApi */
export type ErrorKind = 'transient' | 'throttled' | 'permanent';
