import { InvalidOptionsError } from '@nest-outbox/core';

/**
 * Reads a sample app's environment variables. An empty variable counts as unset; a
 * malformed one throws `InvalidOptionsError` naming the variable and what it must be.
 */
export class EnvReader {
  constructor(
    /** Named in the errors (`order-service`, `shipping-service`, `relay app`). */
    readonly module: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The variable as is, or `fallback` when unset or empty. */
  text(name: string, fallback: string): string {
    return this.env[name] || fallback;
  }

  /**
   * An integer written in digits, from `min` to `max`, or `fallback` when unset or empty
   * (`undefined` leaves the module's default to apply).
   */
  int<F extends number | undefined>(
    name: string,
    fallback: F,
    min = 0,
    max = Number.MAX_SAFE_INTEGER,
  ): number | F {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
      this.fail(name, `must be an integer ${range} written in digits (got "${raw}")`);
    }
    return value;
  }

  /** `1|true|yes` or `0|false|no` (any case), or `fallback` when unset or empty. */
  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
    this.fail(name, `must be true or false (got "${raw}")`);
  }

  /** One of `allowed`, or `fallback` when unset or empty. */
  oneOf<const T extends string>(name: string, allowed: readonly T[], fallback: NoInfer<T>): T {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!allowed.includes(raw as T)) {
      const choices = allowed.map((a) => `"${a}"`).join(', ');
      this.fail(name, `must be one of ${choices} (got "${raw}")`);
    }
    return raw as T;
  }

  private fail(name: string, problem: string): never {
    throw new InvalidOptionsError(this.module, name, problem);
  }
}
