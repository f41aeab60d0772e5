import { InvalidOptionsError } from '../nest-outbox.error';
import { uuidv7 } from '../uuid-v7';
import {
  keepDuration,
  partitionName,
  periodStart,
  policyComment,
  policyOfComment,
  uuidAt,
  uuidMs,
} from './partition-period';

describe('partition periods', () => {
  it('Given a UUIDv7 made now, then it sorts between the bounds of the millisecond it was made at and the next', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(uuidAt(before) <= id && id < uuidAt(after + 1)).toBe(true);
    expect(uuidMs(uuidAt(before))).toBe(before);
  });

  it('Given a time, then its hour, day and week (Monday, UTC) start where expected, and partitions are named by them', () => {
    const at = Date.UTC(2026, 11, 10, 13, 45); // a Thursday
    expect(new Date(periodStart('hourly', at)).toISOString()).toBe('2026-12-10T13:00:00.000Z');
    expect(new Date(periodStart('daily', at)).toISOString()).toBe('2026-12-10T00:00:00.000Z');
    expect(new Date(periodStart('weekly', at)).toISOString()).toBe('2026-12-07T00:00:00.000Z');
    expect(partitionName('outbox', 'hourly', periodStart('hourly', at))).toBe('outbox_p2026121013');
    expect(partitionName('outbox', 'weekly', periodStart('weekly', at))).toBe('outbox_p20261207');
  });

  it('Given keep texts, then valid ones read as milliseconds and others are refused with an example', () => {
    expect(keepDuration('m', '--keep', '7d')).toBe(7 * 86_400_000);
    expect(keepDuration('m', '--keep', '36h')).toBe(36 * 3_600_000);
    for (const bad of ['7', '0d', '1.5d', '7 days', '-1h'])
      expect(() => keepDuration('m', '--keep', bad)).toThrow(InvalidOptionsError);
  });

  it('Given a policy, then its table comment reads back as the same policy, and a foreign comment as none', () => {
    for (const policy of [
      { period: 'daily', keepMs: 14 * 86_400_000 },
      { period: 'hourly', keepMs: 0 },
    ] as const)
      expect(policyOfComment(policyComment(policy))).toEqual(policy);
    expect(policyOfComment('orders by day')).toBeUndefined();
  });
});
