import { validate } from 'class-validator';
import { PG_TIMESTAMPTZ_MAX_MS, PG_TIMESTAMPTZ_MIN_MS } from './pg-column.bounds';
import { IsPgTimestamptz, parsePgTimestamptz } from './pg-timestamptz.validator';

class Window {
  @IsPgTimestamptz()
  from!: unknown;
}

describe('IsPgTimestamptz (unit)', () => {
  it.each([
    ['a date-time in UTC', '2026-01-31T12:00:00Z', Date.UTC(2026, 0, 31, 12)],
    [
      'a date-time with fraction and offset',
      '2026-01-31T12:00:00.250+02:00',
      Date.UTC(2026, 0, 31, 10, 0, 0, 250),
    ],
    ['a date alone (UTC midnight)', '2026-01-31', Date.UTC(2026, 0, 31)],
    ['the earliest accepted instant', '-004713-11-25T00:00:00Z', PG_TIMESTAMPTZ_MIN_MS],
    ['the latest Date', '+275760-09-13T00:00:00Z', PG_TIMESTAMPTZ_MAX_MS],
  ])('accepts %s', async (_case, text, ms) => {
    expect(parsePgTimestamptz(text)?.getTime()).toBe(ms);
    expect(await validate(Object.assign(new Window(), { from: text }))).toEqual([]);
  });

  it.each([
    ['before PostgreSQL range', '-271821-04-20T00:00:00Z'],
    ['a second before the accepted range', '-004713-11-24T23:59:59Z'],
    ['beyond what a Date holds', '+275760-09-13T00:00:00.001Z'],
    ['a four-digit signed year (the legacy parser reads it as AD)', '-4714-01-01'],
    ['a non-ISO date', 'Jan 1 2020'],
    ['an impossible day of month', '2026-02-99T00:00:00Z'],
    ['a number', 1767225600000],
    ['an array of dates', ['2026-01-01']],
    ['a NUL inside', '2026-01-01\u0000'],
  ])('rejects %s, naming the property', async (_case, value) => {
    expect(parsePgTimestamptz(value)).toBeUndefined();
    const [error] = await validate(Object.assign(new Window(), { from: value }));
    expect(error?.property).toBe('from');
    expect(Object.keys(error?.constraints ?? {})).toEqual(['isPgTimestamptz']);
  });
});
