import { InvalidOptionsError } from './nest-outbox.error';
import { OptionChecks, movedUnder } from './option-checks';
import { RenamedOptionError } from './renamed-option.error';

const check = new OptionChecks('RelayModule');

describe('OptionChecks', () => {
  it('returns the value, or the fallback when the option is undefined', () => {
    expect(check.integer('batchSize', 7, 1000)).toBe(7);
    expect(check.integer('batchSize', undefined, 1000)).toBe(1000);
    expect(check.duration('leaseMs', 0, 5)).toBe(0);
    expect(check.duration('retentionMs', Infinity, 5, { infinite: true })).toBe(Infinity);
    expect(check.oneOf('mode', 'archive', ['delete', 'archive'], 'delete')).toBe('archive');
    expect(check.boolean('autoStart', undefined, true)).toBe(true);
  });

  it.each([
    [
      () => check.integer('batchSize', 0, 1000),
      /option "batchSize" must be a positive integer \(got 0\), for example 1000/,
    ],
    [() => check.integer('batchSize', 1.5, 1000), /must be a positive integer \(got 1\.5\)/],
    [() => check.integer('batchSize', NaN, 1000), /\(got NaN\)/],
    [() => check.integer('batchSize', '10', 1000), /\(got "10"\)/],
    [() => check.integer('coalesceMs', -1, 5, { min: 0 }), /must be an integer >= 0 \(got -1\)/],
    [() => check.integer('level', 11, 5, { min: 1, max: 10 }), /must be an integer from 1 to 10/],
    [
      () => check.duration('delayMs', -5, 200),
      /must be a duration in milliseconds >= 0 \(got -5\)/,
    ],
    [
      () => check.duration('delayMs', Infinity, 200),
      /must be a duration in milliseconds >= 0 \(got Infinity\)/,
    ],
    [
      () => check.oneOf('mode', 'drop', ['delete', 'archive'], 'delete'),
      /must be one of "delete", "archive" \(got "drop"\)/,
    ],
    [() => check.boolean('autoStart', 'yes', true), /must be true or false/],
  ])(
    'refuses a wrong value with a typed error that names the option and the fix (%#)',
    (run, message) => {
      expect(run).toThrow(InvalidOptionsError);
      expect(run).toThrow(message);
    },
  );

  it('reads integers written as text strictly: digits only', () => {
    expect(check.integerText('RELAY_BATCH_SIZE', '250', 1000)).toBe(250);
    expect(check.integerText('RELAY_BATCH_SIZE', '', 1000)).toBe(1000);
    expect(check.integerText('RELAY_BATCH_SIZE', undefined, undefined)).toBeUndefined();
    for (const text of ['abc', '1e3', ' 12', '0x10', '12.0', '-'])
      expect(() => check.integerText('RELAY_BATCH_SIZE', text, 1000)).toThrow(
        /option "RELAY_BATCH_SIZE" must be a positive integer written in digits/,
      );
    expect(() => check.integerText('RELAY_BATCH_SIZE', '0', 1000)).toThrow(/\(got 0\)/);
  });

  it('names the larger of two ordered options when they are the wrong way round', () => {
    expect(() =>
      check.ordered(
        { option: 'backoff.baseMs', value: 1000 },
        { option: 'backoff.capMs', value: 10 },
      ),
    ).toThrow(/option "backoff.capMs" \(10\) must be >= backoff.baseMs \(1000\)/);
    expect(() => check.ordered({ option: 'a', value: 1 }, { option: 'b', value: 1 })).not.toThrow();
  });
});

describe('OptionChecks.renamed and OptionChecks.metrics', () => {
  it('refuses an option under its old name with a RenamedOptionError naming the new one and how its value changes', () => {
    const refuse = () =>
      check.renamed({ backoff: { baseMs: 1 } }, { backoff: ['retry', 'baseMs -> baseDelayMs'] });
    expect(refuse).toThrow(RenamedOptionError);
    expect(refuse).toThrow(
      'RelayModule: option "backoff" was renamed to "retry" (baseMs -> baseDelayMs): rename it',
    );
    expect(() =>
      check.renamed({ maxAttempts: undefined }, { maxAttempts: 'retry.maxAttempts' }),
    ).not.toThrow();
  });

  it('refuses a nested old name by its dotted path, and maps names moved under a group', () => {
    const renames = {
      ...movedUnder('tuning', ' leaseMs\n  batchSize '),
      'retention.prune': 'keepMs',
    };
    expect(renames).toMatchObject({ leaseMs: 'tuning.leaseMs', batchSize: 'tuning.batchSize' });
    expect(() => check.renamed({ retention: { prune: false } }, renames)).toThrow(
      'option "retention.prune" was renamed to "keepMs"',
    );
    expect(() => check.renamed({ batchSize: 5 }, renames)).toThrow('"tuning.batchSize"');
    expect(() =>
      check.renamed({ retention: false, tuning: { leaseMs: 1 } }, renames),
    ).not.toThrow();
  });

  it('accepts metrics false, omitted, or a registry-like object with a valid prefix', () => {
    const registry = { registerMetric: () => undefined };
    expect(check.metrics('metrics', false, 'p_')).toBe(false);
    expect(check.metrics('metrics', undefined, 'p_')).toEqual({
      registry: undefined,
      prefix: 'p_',
    });
    expect(check.metrics('metrics', { registry, prefix: 'app:' }, 'p_')).toEqual({
      registry,
      prefix: 'app:',
    });
    expect(() => check.metrics('metrics', { prefix: '1x' }, 'p_')).toThrow(
      /"metrics.prefix" must match/,
    );
    expect(() => check.metrics('metrics', { registry: 'r' }, 'p_')).toThrow(
      /"metrics.registry" must be a prom-client Registry/,
    );
    expect(() => check.metrics('metrics', true as never, 'p_')).toThrow(
      /"metrics" must be \{ registry\?, prefix\? \} or false/,
    );
  });
});
