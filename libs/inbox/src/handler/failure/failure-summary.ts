import { NestOutboxError } from '@nest-outbox/core';
import { errorLabel } from '@nest-outbox/core/internal';
import { InboxPermanentError } from '../../errors/inbox-permanent.error';

/**
 * A handler error for log lines and stored reasons: its class and code only
 * (`QueryFailedError 22P02`), since driver, validator and handler messages echo the values
 * they refused, payload included; the inbox's own errors keep their (value-free) message.
 * @internal
 */
export function describeFailure(error: unknown): string {
  if (error instanceof NestOutboxError && !(error instanceof InboxPermanentError))
    return `${error.name}: ${error.message}`.slice(0, 500);
  return errorLabel(error);
}
