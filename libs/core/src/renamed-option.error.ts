import { InvalidOptionsError } from './nest-outbox.error';

/** An option given under its old name (no silent aliases); the message names the new one. @publicApi */
export class RenamedOptionError extends InvalidOptionsError {
  constructor(
    module: string,
    option: string,
    /** The option that replaces it, for example `retry.maxAttempts`. */
    readonly replacement: string,
    hint?: string,
  ) {
    super(
      module,
      option,
      `was renamed to "${replacement}"${hint ? ` (${hint})` : ''}: rename it (see the migration notes in CHANGELOG.md)`,
    );
  }
}
