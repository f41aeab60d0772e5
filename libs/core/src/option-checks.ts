import { InvalidOptionsError } from './nest-outbox.error';
import { RenamedOptionError } from './renamed-option.error';

/** Bounds of a whole number. @publicApi */
export interface IntegerRange {
  /** @default 1 */
  readonly min?: number;
  readonly max?: number;
}

/** `metrics` of a module's options: a registry and a name prefix, or `false` for none. @publicApi */
export interface MetricsOptions<TRegistry = unknown> {
  readonly registry?: TRegistry;
  readonly prefix?: string;
}

/** `metrics` after validation: `false` when disabled. @publicApi */
export type ResolvedMetricsOptions<TRegistry = unknown> =
  | { readonly registry: TRegistry | undefined; readonly prefix: string }
  | false;

const INTEGER_TEXT = /^[+-]?\d+$/;
const METRIC_PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * Validators of options, environment variables and CLI flags: each returns the value (the
 * fallback for `undefined`) or throws `InvalidOptionsError` naming the option, what was given
 * and what to give. Values are echoed only here, at start-up, where the operator typed them.
 * @example new OptionChecks('RelayModule').integer('batchSize', raw.batchSize, 1000)
 * @publicApi
 */
export class OptionChecks {
  /** @param module named in every error, for example `RelayModule` or `relay:cli` */
  constructor(readonly module: string) {}

  /** Throws `InvalidOptionsError`; `problem` says what is wrong and the fix. */
  fail(option: string, problem: string): never {
    throw new InvalidOptionsError(this.module, option, problem);
  }

  /** A safe integer within `range` (default: at least 1). */
  integer(option: string, value: unknown, fallback: number, range: IntegerRange = {}): number {
    if (value === undefined) return fallback;
    const min = range.min ?? 1;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
      this.fail(
        option,
        `must be ${describeRange(min, max)} (got ${show(value)}), for example ${fallback}`,
      );
    return value;
  }

  /** An integer written in digits (environment variables, CLI flags); `''` gives the fallback. */
  integerText<F extends number | undefined>(
    option: string,
    text: string | undefined,
    fallback: F,
    range: IntegerRange = {},
  ): number | F {
    if (text === undefined || text === '') return fallback;
    const value = INTEGER_TEXT.test(text) ? Number(text) : NaN;
    const min = range.min ?? 1;
    if (Number.isNaN(value))
      this.fail(
        option,
        `must be ${describeRange(min, range.max ?? Number.MAX_SAFE_INTEGER)} written in digits (got ${show(text)}), for example ${fallback ?? Math.max(min, 1)}`,
      );
    return this.integer(option, value, fallback ?? value, range);
  }

  /** A duration in milliseconds `>= min` (default 0), or `Infinity` when `infinite` allows it. */
  duration(
    option: string,
    value: unknown,
    fallback: number,
    { min = 0, infinite = false }: { min?: number; infinite?: boolean } = {},
  ): number {
    if (value === undefined) return fallback;
    if (infinite && value === Infinity) return value;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
      this.fail(
        option,
        `must be a duration in milliseconds >= ${min}${infinite ? ' or Infinity' : ''} (got ${show(value)}), for example ${fallback}`,
      );
    return value;
  }

  /** One of `allowed`. */
  oneOf<const T extends string>(
    option: string,
    value: unknown,
    allowed: readonly T[],
    fallback: NoInfer<T>,
  ): T {
    if (value === undefined) return fallback;
    if (!allowed.includes(value as T))
      this.fail(
        option,
        `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')} (got ${show(value)})`,
      );
    return value as T;
  }

  /** `true` or `false`. */
  boolean(option: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') this.fail(option, `must be true or false (got ${show(value)})`);
    return value;
  }

  /** `low <= high` for two options already checked (`high` is named in the error). */
  ordered(low: { option: string; value: number }, high: { option: string; value: number }): void {
    if (high.value < low.value)
      this.fail(
        high.option,
        `(${high.value}) must be >= ${low.option} (${low.value}): raise ${high.option} or lower ${low.option}`,
      );
  }

  /**
   * Refuses options given under their old names: `renamed` maps each old name (a key of
   * `raw`, or a dotted path such as `retention.publishedMs`) to the option that replaces it,
   * or to `[replacement, how the value changes]`.
   * @throws RenamedOptionError naming the new option
   */
  renamed(
    raw: object,
    renamed: Readonly<Record<string, string | readonly [string, string]>>,
  ): void {
    for (const [old, to] of Object.entries(renamed)) {
      if (valueAt(raw, old) === undefined) continue;
      const [replacement, hint] = typeof to === 'string' ? [to, undefined] : to;
      throw new RenamedOptionError(this.module, old, replacement, hint);
    }
  }

  /** `metrics`: `false`, or `{ registry?, prefix? }` (a prom-client `Registry`, a name prefix). */
  metrics<TRegistry>(
    option: string,
    value: MetricsOptions<TRegistry> | false | undefined,
    defaultPrefix: string,
  ): ResolvedMetricsOptions<TRegistry> {
    if (value === false) return false;
    if (value === undefined) return { registry: undefined, prefix: defaultPrefix };
    if (value === null || typeof value !== 'object')
      this.fail(option, `must be { registry?, prefix? } or false (got ${show(value)})`);
    const { registry, prefix = defaultPrefix } = value;
    if (
      registry !== undefined &&
      typeof (registry as { registerMetric?: unknown } | null)?.registerMetric !== 'function'
    )
      this.fail(`${option}.registry`, 'must be a prom-client Registry (new Registry()) or omitted');
    if (typeof prefix !== 'string' || (prefix !== '' && !METRIC_PREFIX.test(prefix)))
      this.fail(
        `${option}.prefix`,
        `must match ${METRIC_PREFIX.source} (got ${show(prefix)}), for example ${JSON.stringify(defaultPrefix)}`,
      );
    return { registry, prefix };
  }
}

/**
 * The renames of options moved, unchanged, under `group`, from their names separated by
 * white space: `movedUnder('tuning', 'leaseMs')` is `{ leaseMs: 'tuning.leaseMs' }`.
 */
export function movedUnder(group: string, names: string): Record<string, string> {
  return Object.fromEntries(
    names
      .trim()
      .split(/\s+/)
      .map((n) => [n, `${group}.${n}`]),
  );
}

function valueAt(raw: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (v, key) =>
        v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined,
      raw,
    );
}

function describeRange(min: number, max: number): string {
  if (max !== Number.MAX_SAFE_INTEGER) return `an integer from ${min} to ${max}`;
  return min === 1 ? 'a positive integer' : `an integer >= ${min}`;
}

function show(value: unknown): string {
  if (typeof value === 'number') return String(value); // JSON would write NaN as null
  return JSON.stringify(value) ?? typeof value;
}
