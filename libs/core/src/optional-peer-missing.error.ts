import { NestOutboxError } from './nest-outbox.error';

/**
 * An option asks for a feature whose optional peer dependency is not installed, and it
 * cannot be left out silently (for example a metrics registry given without prom-client).
 * @publicApi
 */
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
