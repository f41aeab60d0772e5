import { NestOutboxError } from '@nest-outbox/core';

/**
 * A non-critical command was refused under critical back-pressure; nothing was written.
 * Answer "busy, retry later" (503 with `Retry-After: retryAfterSeconds`).
 * @publicApi
 */
export class OutboxBackPressureError extends NestOutboxError {
  readonly retryable = true;

  constructor(
    /** The refused command (`Class.method`, or `transaction` for the function form). */
    readonly command: string,
    /** Figures and thresholds, no data. */
    readonly reasons: readonly string[],
    readonly retryAfterSeconds: number,
  ) {
    super(
      `OutboxModule: ${command} refused under back-pressure (state critical: ${reasons.join('; ')}); ` +
        `nothing was written: retry in ${retryAfterSeconds} s, or mark the command critical ` +
        'if it must run while the relay catches up',
    );
  }
}
