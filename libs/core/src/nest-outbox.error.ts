/**
 * Base class of every error nest-outbox throws for misuse or misconfiguration.
 * Messages say what is wrong and how to fix it; `name` is the subclass name so logs and
 * `instanceof` checks both work across package boundaries.
 * @publicApi
 */
export class NestOutboxError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Options given to a nest-outbox module are invalid. Thrown at start-up, never later.
 * @publicApi
 */
export class InvalidOptionsError extends NestOutboxError {
  constructor(
    readonly module: string,
    readonly option: string,
    problem: string,
  ) {
    super(`${module}: option "${option}" ${problem}`);
  }
}
