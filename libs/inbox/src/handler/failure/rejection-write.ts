import type { InboxStore, RejectionRow } from '../../store/inbox.store';
import { errorLabel } from '@nest-outbox/core/internal';

/** How a record the inbox gave up on was recorded. @internal */
export type RecordedAs = 'recorded' | 'minimal' | 'unrecorded';

/** Tries of a rejected row against an infrastructure error (then it is thrown: redelivered). */
const WRITE_ATTEMPTS = 3;
const WRITE_DELAYS_MS = [200, 1000];

/**
 * True when PostgreSQL refused the row for what it holds (data exception, integrity, a
 * missing column, a size limit: SQLSTATE classes 22, 23, 42, 54) or our own code choked on
 * it: retrying the same row can never work. Anything else (connection lost, pool exhausted,
 * server shutting down) is infrastructure, not input.
 * @internal
 */
export function refusedForContent(error: unknown): boolean {
  if (error instanceof RangeError || error instanceof TypeError || error instanceof SyntaxError)
    return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|42|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * Writes a rejected row, settling whatever its content: the full row; if PostgreSQL refuses
 * it for its content, a minimal row (position, reason code, attempts, and the class and code
 * of the refusal); if even that is refused, nothing (`unrecorded`: the caller counts it and
 * logs its position). Infrastructure errors are retried a few times with `pause` between,
 * then thrown (the record is redelivered: the input is not the cause).
 * @internal
 */
export async function writeRejection(
  store: InboxStore,
  row: RejectionRow,
  pause: (ms: number) => Promise<void>,
): Promise<{ as: RecordedAs; error?: unknown }> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.recordRejection(row);
      return { as: 'recorded' };
    } catch (error) {
      if (refusedForContent(error)) return writeMinimal(store, row, error);
      if (attempt >= WRITE_ATTEMPTS) throw error;
      await pause(WRITE_DELAYS_MS[attempt - 1] ?? 1000);
    }
  }
}

async function writeMinimal(
  store: InboxStore,
  row: RejectionRow,
  refusal: unknown,
): Promise<{ as: RecordedAs; error?: unknown }> {
  try {
    await store.recordMinimalRejection(
      row,
      `${row.reason.slice(0, 1500)}; full row refused: ${errorLabel(refusal)}`,
    );
    return { as: 'minimal', error: refusal };
  } catch (error) {
    if (refusedForContent(error)) return { as: 'unrecorded', error };
    throw error;
  }
}
