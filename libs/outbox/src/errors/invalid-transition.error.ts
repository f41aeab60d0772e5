import { NestOutboxError } from '@nest-outbox/core';

/** A conditional transition matched no row (missing, or changed by someone else first). @publicApi */
export class InvalidTransitionError extends NestOutboxError {
  constructor(
    readonly table: string,
    readonly id: unknown,
    readonly from: readonly string[],
    readonly to: string,
  ) {
    super(
      `Transition of ${table} id=${String(id)} from ${from.map((s) => `"${s}"`).join(' | ')} ` +
        `to "${to}" matched no row: the row does not exist or is no longer in the expected ` +
        'state; reload it and decide again (no event was recorded)',
    );
  }
}
