import { OptionChecks } from '../option-checks';
import { BacklogPressure, evaluatePressure, forecastSecondsToBudget } from './backlog-pressure';
import { BacklogTrend, type BacklogSample } from './backlog-trend';
import { resolvePressureOptions } from './pressure-options';

const check = new OptionChecks('TestModule');
const sample = (atS: number, backlog: number, oldestAgeS = 0, drained = 0): BacklogSample => ({
  atMs: 1_000_000 + atS * 1000,
  backlog,
  oldestAgeMs: oldestAgeS * 1000,
  drained,
  drainWindowMs: 10_000,
});
const budget = { maxBacklog: 1_100, maxOldestAgeMs: 60_000 };

describe('BacklogTrend', () => {
  it('draws the backlog slope by least squares and the drain from the newest sample', () => {
    const trend = new BacklogTrend(60_000);
    for (let s = 0; s <= 10; s++) trend.add(sample(s, 100 + 10 * s + (s % 2 ? 3 : -3), 0, 500));
    const rates = trend.rates();
    expect(rates.backlogPerSecond).toBeCloseTo(10, 0);
    expect(rates.drainPerSecond).toBe(50);
    expect(rates.fillPerSecond).toBeCloseTo(60, 0);
  });

  it('forgets samples older than its window and keeps the newest', () => {
    const trend = new BacklogTrend(5_000);
    trend.add(sample(0, 1000)); // a spike long gone
    for (let s = 20; s <= 25; s++) trend.add(sample(s, 10, 0, s === 25 ? 500 : 0));
    expect(trend.rates().backlogPerSecond).toBe(0);
    // The drain is read from the newest sample.
    expect(trend.rates().drainPerSecond).toBe(50);
  });

  it('has no slope with a single sample', () => {
    const trend = new BacklogTrend(60_000);
    trend.add(sample(0, 500, 30));
    expect(trend.rates()).toMatchObject({ backlogPerSecond: 0, agePerSecond: 0 });
  });
});

describe('forecastSecondsToBudget', () => {
  it('divides the room left by the growth of the backlog', () => {
    const now = { backlog: 100, oldestAgeMs: 0 };
    expect(forecastSecondsToBudget(now, { backlogPerSecond: 10, agePerSecond: 0 }, budget)).toBe(
      100,
    );
  });

  it('is +Inf while draining faster than filling, even with an old head', () => {
    const now = { backlog: 1_000, oldestAgeMs: 50_000 };
    const rates = { backlogPerSecond: -5, agePerSecond: 1 };
    expect(forecastSecondsToBudget(now, rates, budget)).toBe(Number.POSITIVE_INFINITY);
  });

  it('follows the head age when nothing is published (broker down, no writes)', () => {
    const now = { backlog: 10, oldestAgeMs: 20_000 };
    expect(forecastSecondsToBudget(now, { backlogPerSecond: 0, agePerSecond: 1 }, budget)).toBe(40);
  });

  it('takes whichever budget comes first', () => {
    const now = { backlog: 1_000, oldestAgeMs: 30_000 };
    const rates = { backlogPerSecond: 20, agePerSecond: 1 };
    expect(forecastSecondsToBudget(now, rates, budget)).toBe(5);
  });

  it('is 0 once a budget is reached, draining or not', () => {
    const rates = { backlogPerSecond: -100, agePerSecond: -1 };
    expect(forecastSecondsToBudget({ backlog: 2_000, oldestAgeMs: 0 }, rates, budget)).toBe(0);
    expect(forecastSecondsToBudget({ backlog: 0, oldestAgeMs: 60_000 }, rates, budget)).toBe(0);
  });

  it('is +Inf when neither figure grows', () => {
    const now = { backlog: 10, oldestAgeMs: 100 };
    expect(forecastSecondsToBudget(now, { backlogPerSecond: 0, agePerSecond: 0 }, budget)).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe('evaluatePressure', () => {
  const options = resolvePressureOptions(check, 'pressure', {
    maxBacklog: 1_000,
    maxOldestAgeMs: 10_000,
  });
  const inf = Number.POSITIVE_INFINITY;

  it('is ok below every warn threshold', () => {
    expect(evaluatePressure({ backlog: 499, oldestAgeMs: 4_999 }, 601, options)).toEqual({
      state: 'ok',
      reasons: [],
    });
  });

  it('warns at half a budget or a forecast of ten minutes', () => {
    expect(evaluatePressure({ backlog: 500, oldestAgeMs: 0 }, inf, options).state).toBe('warn');
    expect(evaluatePressure({ backlog: 0, oldestAgeMs: 5_000 }, inf, options).state).toBe('warn');
    expect(evaluatePressure({ backlog: 0, oldestAgeMs: 0 }, 600, options).state).toBe('warn');
  });

  it('is critical at 90 % of a budget or a forecast of a minute, and says why', () => {
    const byAge = evaluatePressure({ backlog: 0, oldestAgeMs: 9_000 }, inf, options);
    expect(byAge).toEqual({ state: 'critical', reasons: ['oldest age 9000 ms >= 9000 ms'] });
    expect(evaluatePressure({ backlog: 900, oldestAgeMs: 0 }, inf, options).state).toBe('critical');
    expect(evaluatePressure({ backlog: 0, oldestAgeMs: 0 }, 60, options).state).toBe('critical');
  });
});

describe('BacklogPressure', () => {
  it('turns critical as the head ages with the broker down, and ok once it drains', () => {
    const pressure = new BacklogPressure(
      resolvePressureOptions(check, 'pressure', {
        maxOldestAgeMs: 10_000,
        criticalForecastSeconds: 2,
        warnForecastSeconds: 4,
        windowMs: 5_000,
      }),
    );
    expect(pressure.observe(sample(0, 5, 0)).state).toBe('ok');
    expect(pressure.observe(sample(1, 5, 1)).state).toBe('ok');
    expect(pressure.observe(sample(5, 5, 5)).state).toBe('warn'); // half the age budget
    const late = pressure.observe(sample(8.5, 5, 8.5));
    expect(late).toMatchObject({ state: 'critical', backlog: 5 });
    expect(late.forecastSeconds).toBeCloseTo(1.5, 5);
    for (let s = 9; s <= 16; s++) pressure.observe(sample(s, 0, 0, 5));
    expect(pressure.latest).toMatchObject({ state: 'ok', forecastSeconds: Infinity });
  });
});

describe('resolvePressureOptions', () => {
  it('gives the documented defaults', () => {
    expect(resolvePressureOptions(check, 'pressure', undefined)).toEqual({
      maxBacklog: 100_000,
      maxOldestAgeMs: 300_000,
      warnPercent: 50,
      criticalPercent: 90,
      warnForecastSeconds: 600,
      criticalForecastSeconds: 60,
      windowMs: 60_000,
    });
  });

  it('refuses the old intervalMs: the relay samples every statsIntervalMs', () => {
    expect(() => resolvePressureOptions(check, 'pressure', { intervalMs: 5000 })).toThrow(
      /"intervalMs" was renamed to "statsIntervalMs"/,
    );
  });

  it('refuses thresholds in the wrong order and says which to change', () => {
    expect(() =>
      resolvePressureOptions(check, 'pressure', { warnPercent: 95, criticalPercent: 90 }),
    ).toThrow(/pressure\.criticalPercent.*must be >= pressure\.warnPercent/);
    expect(() => resolvePressureOptions(check, 'pressure', { maxBacklog: 0 })).toThrow(
      /pressure\.maxBacklog/,
    );
    expect(() => resolvePressureOptions(check, 'pressure', 'high')).toThrow(/pressure/);
  });
});
