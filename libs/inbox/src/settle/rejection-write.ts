import type { InboxStore, RejectionRow } from '../store/inbox.store';
import { errorLabel } from '@nest-outbox/core/internal';

/** How a record the inbox gave up on was recorded. @internal */
export type RecordedAs = 'recorded' | 'minimal' | 'unrecorded';

/** Tries of a rejected row against an infrastructure error (then it is thrown: redelivered). */
const WRITE_ATTEMPTS = 3;
const WRITE_DELAYS_MS = [200, 1000];

/**
 * True when PostgreSQL refused the row for its content (SQLSTATE classes 22, 23, 42, 54) or our
 * code choked on it; anything else is infrastructure. @internal
 */
export function refusedForContent(error: unknown): boolean {
  if (error instanceof RangeError || error instanceof TypeError || error instanceof SyntaxError)
    return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|42|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * Writes a rejected row whatever its content: the full row, else a minimal row, else nothing
 * (`unrecorded`). Infrastructure errors are retried a few times, then thrown. @internal
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
