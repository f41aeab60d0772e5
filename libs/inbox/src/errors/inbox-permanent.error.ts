import { NestOutboxError } from '@nest-outbox/core';

/**
 * Thrown by a handler to say that retrying cannot help (for example a business rule the
 * event violates): the event is dead-lettered (or its partition paused) at once. @publicApi
 */
export class InboxPermanentError extends NestOutboxError {}
