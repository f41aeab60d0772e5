import { InvalidOptionsError } from '@nest-outbox/core';

/**
 * Reads a sample service's environment variables. An empty variable counts as unset; a
 * malformed one throws `InvalidOptionsError` naming the variable and what it must be.
 */
export class EnvReader {
  constructor(
    /** Named in the errors (`order-service`, `shipping-service`). */
    readonly module: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The variable as is, or `fallback` when unset or empty. */
  text(name: string, fallback: string): string {
    return this.env[name] || fallback;
  }

  /** An integer `>= min`, or `fallback` when unset or empty. */
  int(name: string, fallback: number, min = 0): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) {
      throw new InvalidOptionsError(
        this.module,
        name,
        `must be an integer >= ${min} (got "${raw}")`,
      );
    }
    return value;
  }

  /** `1|true|yes` or `0|false|no` (any case), or `fallback` when unset or empty. */
  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
    throw new InvalidOptionsError(this.module, name, `must be true or false (got "${raw}")`);
  }
}
