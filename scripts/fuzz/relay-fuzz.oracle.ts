import { LEGAL_TOPIC, type FuzzRow } from './relay-fuzz.arbitraries';

/** What must become of a row. */
export type Fate =
  | { readonly kind: 'published'; readonly occurredAt: string }
  | { readonly kind: 'parked'; readonly columns: readonly string[] }
  | { readonly kind: 'held' };

/** The latest instant a JavaScript date holds (the contract's `occurredAt` is a Date). */
const MAX_MS = 8.64e15;

/**
 * Epoch milliseconds (rounded down) of a generated timestamptz literal, computed from its
 * parts, independently of PostgreSQL and of the relay; undefined when no date can hold it.
 */
export function literalMs(literal: string): number | undefined {
  if (literal === 'infinity' || literal === '-infinity') return undefined;
  const m = /^(\d+)-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|\+00)( BC)?$/.exec(
    literal,
  );
  if (!m) throw new Error(`unparsed literal ${literal}`);
  const year = Number(m[1]);
  const date = new Date(0);
  // Astronomical years: 1 BC is year 0, 4714 BC is -4713.
  date.setUTCFullYear(m[8] ? 1 - year : year, Number(m[2]) - 1, Number(m[3]));
  date.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  const ms = date.getTime() + Math.floor(Number((m[7] ?? '0').padEnd(6, '0')) / 1000);
  return Number.isNaN(ms) || Math.abs(ms) > MAX_MS ? undefined : ms;
}

/** The columns of `row` that no record can carry. */
export function badColumns(row: FuzzRow): string[] {
  const bad: string[] = [];
  if (row.topic !== null && (!LEGAL_TOPIC.test(row.topic) || /^\.\.?$/.test(row.topic)))
    bad.push('topic');
  if (literalMs(row.occurredAt) === undefined) bad.push('occurred_at');
  const h = row.headers;
  const object = typeof h === 'object' && !Array.isArray(h);
  if (h !== null && (!object || Object.values(h).some((v) => typeof v !== 'string')))
    bad.push('headers');
  return bad;
}

/**
 * The fate of every stored row, aggregate by aggregate in id order: published until the first
 * row with a bad column, which parks (its reason naming one of them); the rest of its
 * aggregate waits behind it.
 */
export function expectedFate(
  stored: readonly { event_id: string; aggregate_type: string; aggregate_id: string }[],
  rows: ReadonlyMap<string, FuzzRow>,
): Map<string, Fate> {
  const blocked = new Set<string>();
  const fates = new Map<string, Fate>();
  for (const s of stored) {
    const aggregate = `${s.aggregate_type}\u0000${s.aggregate_id}`;
    const row = rows.get(s.event_id);
    if (blocked.has(aggregate)) {
      fates.set(s.event_id, { kind: 'held' });
      continue;
    }
    const bad = row ? badColumns(row) : [];
    if (bad.length > 0) {
      blocked.add(aggregate);
      fates.set(s.event_id, { kind: 'parked', columns: bad });
      continue;
    }
    const ms = row ? literalMs(row.occurredAt)! : 0;
    fates.set(s.event_id, { kind: 'published', occurredAt: new Date(ms).toISOString() });
  }
  return fates;
}
