import { InboxPermanentError } from './inbox-permanent.error';

/**
 * An interceptor of an inbox handler returned without calling `next.handle()`: the handler did
 * not run, so the event is not marked applied. Permanent: the event is dead-lettered (reason
 * `handler_failed`) or its partition paused, as `onExhausted` says. @publicApi
 */
export class InboxHandlerSkippedError extends InboxPermanentError {
  constructor(handler: string) {
    super(
      `${handler}: an interceptor returned without calling next.handle(), so the handler did not run. ` +
        'Call next.handle(), or throw from the interceptor to refuse the event (InboxPermanentError dead-letters it at once).',
    );
  }
}
