import { InvalidOptionsError } from '../nest-outbox.error';

/** How much time one partition covers. @publicApi */
export type PartitionPeriod = 'hourly' | 'daily' | 'weekly';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PERIOD_MS: Record<PartitionPeriod, number> = { hourly: HOUR, daily: DAY, weekly: 7 * DAY };
/** Weeks start on Monday, UTC: 1970-01-05 was the first Monday after the epoch. */
const FIRST_MONDAY = 4 * DAY;
const UNITS: Record<string, number> = { m: 60_000, h: HOUR, d: DAY, w: 7 * DAY };

/** How a partitioned table is kept: its period, and the retention floor (`0`: none). @publicApi */
export interface PartitionPolicy {
  readonly period: PartitionPeriod;
  readonly keepMs: number;
}

/** @throws InvalidOptionsError naming the accepted periods @internal */
export function partitionPeriod(module: string, option: string, text: unknown): PartitionPeriod {
  if (text === 'hourly' || text === 'daily' || text === 'weekly') return text;
  throw new InvalidOptionsError(
    module,
    option,
    `must be hourly, daily or weekly (got ${JSON.stringify(text)})`,
  );
}

/** `7d`, `36h`, `2w`, `90m` in milliseconds. @throws InvalidOptionsError with an example @internal */
export function keepDuration(module: string, option: string, text: string): number {
  const match = /^([1-9]\d{0,5})([mhdw])$/.exec(text);
  if (!match) {
    throw new InvalidOptionsError(
      module,
      option,
      `must be a whole number of minutes, hours, days or weeks (got ${JSON.stringify(text)}), for example 7d or 36h`,
    );
  }
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** The shortest text `keepDuration` reads back as `ms`. @internal */
export function durationText(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm'])
    if (ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  return `${Math.ceil(ms / 60_000)}m`;
}

/** Milliseconds of one period. @internal */
export const periodMs = (period: PartitionPeriod): number => PERIOD_MS[period];

/** Start (epoch ms, UTC) of the period holding `ms`. @internal */
export function periodStart(period: PartitionPeriod, ms: number): number {
  const offset = period === 'weekly' ? FIRST_MONDAY : 0;
  return Math.floor((ms - offset) / PERIOD_MS[period]) * PERIOD_MS[period] + offset;
}

/**
 * The lowest UUIDv7 of millisecond `ms`: its 48-bit time, every other bit zero. UUIDs compare
 * byte by byte, so every UUIDv7 made at `ms` or later sorts at or after it.
 * @internal
 */
export function uuidAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-0000-0000-000000000000`;
}

/** The millisecond a UUIDv7 (or bound from `uuidAt`) carries. @internal */
export const uuidMs = (uuid: string): number => parseInt(uuid.replace('-', '').slice(0, 12), 16);

/** The name of the partition of `table` starting at `start`: `outbox_p20261207`, `outbox_p2026120713`. @internal */
export function partitionName(table: string, period: PartitionPeriod, start: number): string {
  const iso = new Date(start).toISOString();
  const digits = iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10);
  return `${table}_p${digits}${period === 'hourly' ? iso.slice(11, 13) : ''}`;
}

const COMMENT = /^nest-outbox partitions: period=(hourly|daily|weekly) keep=(\w+)$/;

/** The table comment that records the policy (what `\d+` shows an operator). @internal */
export const policyComment = (policy: PartitionPolicy): string =>
  `nest-outbox partitions: period=${policy.period} keep=${policy.keepMs === 0 ? 'none' : durationText(policy.keepMs)}`;

/** The policy a table comment records; `undefined` when it records none. @internal */
export function policyOfComment(comment: string | null | undefined): PartitionPolicy | undefined {
  const match = COMMENT.exec(comment ?? '');
  if (!match) return undefined;
  const keep = match[2]!;
  return {
    period: match[1] as PartitionPeriod,
    keepMs: keep === 'none' ? 0 : keepDuration('partitions', 'keep', keep),
  };
}
