import { NestOutboxError } from '@nest-outbox/core';

/**
 * A non-critical command (`@OutboxTransactional({ critical: false })`) was refused because
 * the outbox's pressure state is `critical`: the backlog, the age of its oldest event or
 * the forecast crossed the critical threshold. Nothing was written. Answer it as "busy,
 * retry later" (HTTP 503 with `Retry-After: retryAfterSeconds`); critical commands still run.
 * @publicApi
 */
export class OutboxBackPressureError extends NestOutboxError {
  /** Always true: the same command may be retried once the pressure falls. */
  readonly retryable = true;

  constructor(
    /** The refused command (`Class.method`, or `transaction` for the function form). */
    readonly command: string,
    /** Why the state is critical (figures and thresholds, no data). */
    readonly reasons: readonly string[],
    /** When to try again: the sampling interval, at least one second. */
    readonly retryAfterSeconds: number,
  ) {
    super(
      `OutboxModule: ${command} refused under back-pressure (state critical: ${reasons.join('; ')}); ` +
        `nothing was written: retry in ${retryAfterSeconds} s, or mark the command critical ` +
        'if it must run while the relay catches up',
    );
  }
}
