import { NestOutboxError } from './nest-outbox.error';

/** An option needs an optional peer that is not installed (e.g. a metrics registry without prom-client). @publicApi */
export class OptionalPeerMissingError extends NestOutboxError {
  constructor(
    readonly module: string,
    readonly peer: string,
    /** The option that needs it. */
    readonly option: string,
  ) {
    super(
      `${module}: option "${option}" needs the optional peer dependency "${peer}", which is not installed: run "npm i ${peer}" in the application, or remove the option`,
    );
  }
}
