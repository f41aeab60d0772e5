import { Inject, Injectable } from '@nestjs/common';
import { INBOX_HANDLER_METADATA, INBOX_OPTIONS } from '../../inbox.constants';
import type { InboxHandlerOptions } from '../../options/inbox-options.interface';
import {
  resolveHandlerPolicy,
  type ResolvedHandlerPolicy,
  type ResolvedInboxOptions,
} from '../../options/inbox-options.resolver';

/** What `@InboxHandler` stores on the method. @internal */
export interface InboxHandlerMetadata {
  readonly consumer: string;
  readonly options: InboxHandlerOptions;
}

/**
 * Resolves each handler's options over the module defaults once, and caches them by
 * handler function.
 * @internal
 */
@Injectable()
export class InboxHandlerPolicies {
  private readonly cache = new WeakMap<
    object,
    { consumer: string; policy: ResolvedHandlerPolicy }
  >();

  constructor(@Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions) {}

  metadataOf(handler: object): InboxHandlerMetadata | undefined {
    return Reflect.getMetadata(INBOX_HANDLER_METADATA, handler) as InboxHandlerMetadata | undefined;
  }

  /** The consumer name and policy of a handler, or undefined if it has no `@InboxHandler`. */
  forHandler(handler: object): { consumer: string; policy: ResolvedHandlerPolicy } | undefined {
    let entry = this.cache.get(handler);
    if (!entry) {
      const meta = this.metadataOf(handler);
      if (!meta) return undefined;
      entry = {
        consumer: meta.consumer,
        policy: resolveHandlerPolicy(meta.consumer, this.options, meta.options),
      };
      this.cache.set(handler, entry);
    }
    return entry;
  }
}
