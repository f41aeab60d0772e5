import type { ConsumedRecord } from '@test/support';
import type { WrittenEvent } from './test-producer';

/** What the delivery check found. */
export interface DeliveryReport {
  /** Event ids seen more than once (each later occurrence). */
  readonly duplicates: string[];
  /** Expected event ids never seen. */
  readonly missing: string[];
  /** First occurrences out of aggregate_version order, per key. */
  readonly orderViolations: string[];
}

/**
 * Checks the delivery invariants on what was read back: every expected event is there (I1),
 * per key the first occurrences follow aggregate_version (I3), duplicates only repeat
 * earlier records.
 */
export function checkDelivery(
  records: readonly ConsumedRecord[],
  expected: readonly WrittenEvent[],
): DeliveryReport {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const lastVersion = new Map<string, number>();
  const orderViolations: string[] = [];
  for (const r of records) {
    const id = r.headers.event_id!;
    if (seen.has(id)) {
      duplicates.push(id);
      continue;
    }
    seen.add(id);
    const version = Number(r.headers.aggregate_version);
    const key = r.key ?? '';
    const last = lastVersion.get(key) ?? 0;
    if (version !== last + 1) orderViolations.push(`${key}: v${version} after v${last}`);
    lastVersion.set(key, Math.max(last, version));
  }
  const missing = expected.filter((e) => !seen.has(e.eventId)).map((e) => e.eventId);
  return { duplicates, missing, orderViolations };
}
