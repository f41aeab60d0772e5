import type { RelayStats } from '../store/relay-stats';

/**
 * A relay's stats shared with the other relays of its outbox: one NOTIFY on the relay's LISTEN
 * channel after each stats statement, so that N relays run that statement about once per
 * interval between them instead of N times. Payload: `<schema>.<table> stats <json>` (the
 * producers' wake-up payload is the bare `<schema>.<table>`, so a relay that does not know
 * this form ignores it).
 * @internal
 */
export interface StatsNotice {
  /** The relay that ran the statement (a relay also hears its own notices). */
  readonly relayId: string;
  /** How long the statement took: the receiver's pause follows from it as from its own run. */
  readonly durationMs: number;
  readonly stats: RelayStats;
}

/** Longest relay id a notice carries (NOTIFY payloads stop at 8,000 bytes). */
const MAX_RELAY_ID = 200;

const prefix = (outbox: string) => `${outbox} stats `;

/**
 * The NOTIFY payload of `notice` for the relays of `outbox` (`schema.table`); undefined for a
 * relay id longer than the receivers take (that relay's figures are then not shared).
 * @internal
 */
export function encodeStatsNotice(outbox: string, notice: StatsNotice): string | undefined {
  const { relayId, durationMs, stats } = notice;
  if (relayId.length > MAX_RELAY_ID) return undefined;
  return prefix(outbox) + JSON.stringify({ relayId, durationMs, ...stats });
}

const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const amount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * The notice in a NOTIFY payload for `outbox`, or undefined when the payload is not one: any
 * session that can NOTIFY can send anything on the channel, so every field is checked (counts
 * are non-negative integers, durations and ages finite and non-negative) and nothing throws.
 * @internal
 */
export function decodeStatsNotice(outbox: string, payload: string): StatsNotice | undefined {
  const head = prefix(outbox);
  if (!payload.startsWith(head)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(payload.slice(head.length));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const { relayId, durationMs, pending, parked, suspects, oldestAgeMs, oldestUnparkedAgeMs } = b;
  if (typeof relayId !== 'string' || relayId.length === 0 || relayId.length > MAX_RELAY_ID)
    return undefined;
  if (!amount(durationMs) || !count(pending) || !count(parked) || !count(suspects))
    return undefined;
  if (!amount(oldestAgeMs) || !amount(oldestUnparkedAgeMs)) return undefined;
  return {
    relayId,
    durationMs,
    stats: { pending, parked, suspects, oldestAgeMs, oldestUnparkedAgeMs },
  };
}
