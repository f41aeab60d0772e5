import { NestOutboxError } from '@nest-outbox/core';
import { errorLabel } from '@nest-outbox/core/internal';
import { InboxHandlerSkippedError } from '../errors/inbox-handler-skipped.error';
import { InboxPermanentError } from '../errors/inbox-permanent.error';

/**
 * A handler error as its class and code only (`QueryFailedError 22P02`): messages echo the
 * values refused; the inbox's own errors keep their (value-free) message. @internal
 */
export function describeFailure(error: unknown): string {
  const users =
    error instanceof InboxPermanentError && !(error instanceof InboxHandlerSkippedError);
  if (error instanceof NestOutboxError && !users)
    return `${error.name}: ${error.message}`.slice(0, 500);
  return errorLabel(error);
}
