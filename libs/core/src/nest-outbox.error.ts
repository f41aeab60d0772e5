/** Base class of nest-outbox's misuse and misconfiguration errors; `name` is the subclass name. @publicApi */
export class NestOutboxError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Options given to a nest-outbox module are invalid (thrown at start-up). @publicApi */
export class InvalidOptionsError extends NestOutboxError {
  constructor(
    readonly module: string,
    readonly option: string,
    problem: string,
  ) {
    super(`${module}: option "${option}" ${problem}`);
  }
}
