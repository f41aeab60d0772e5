import { NestOutboxError } from '@nest-outbox/core';

/**
 * A conditional transition matched no row: the entity does not exist or is not in the
 * expected state (someone else changed it first). No event may be recorded for it; let the
 * error roll the transaction back, or catch it and answer "conflict".
 * @publicApi
 */
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
