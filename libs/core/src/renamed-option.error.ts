import { InvalidOptionsError } from './nest-outbox.error';

/**
 * An option was given under a name nest-outbox no longer reads (renamed when the three
 * modules' options were unified). Thrown at start-up; the message names the new option, so
 * the fix is to rename it. There are no silent aliases: an old name is never ignored.
 * @publicApi
 */
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
