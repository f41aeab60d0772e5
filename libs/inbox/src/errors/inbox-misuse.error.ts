import { NestOutboxError } from '@nest-outbox/core';

/**
 * A handler decorator or the handler's module was used wrongly (for example
 * `@InboxHandler` without `InboxModule.forRoot()`). @publicApi
 */
export class InboxMisuseError extends NestOutboxError {}
