import { Inject, Injectable } from '@nestjs/common';
import { INBOX_HANDLER_METADATA, INBOX_OPTIONS } from '../inbox.constants';
import type { InboxHandlerOptions } from './inbox-options.interface';
import {
  resolveHandlerPolicy,
  type ResolvedHandlerPolicy,
  type ResolvedInboxOptions,
} from './inbox-options.resolver';

/** What `@InboxHandler` stores on the method. @internal */
export interface InboxHandlerMetadata {
  readonly consumer: string;
  readonly options: InboxHandlerOptions;
  /** `@InboxBatchHandler`: called with a chunk's new events (`@InboxEvents()`). */
  readonly batch?: boolean;
}

/** A handler's consumer name, resolved policy and kind. @internal */
export interface InboxHandlerEntry {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  readonly batch: boolean;
}

/** Each handler's options resolved over the module defaults, cached by handler. @internal */
@Injectable()
export class InboxHandlerPolicies {
  private readonly cache = new WeakMap<object, InboxHandlerEntry>();

  constructor(@Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions) {}

  metadataOf(handler: object): InboxHandlerMetadata | undefined {
    return Reflect.getMetadata(INBOX_HANDLER_METADATA, handler) as InboxHandlerMetadata | undefined;
  }

  /** The consumer name, policy and kind of a handler, or undefined if it has no `@InboxHandler`. */
  forHandler(handler: object): InboxHandlerEntry | undefined {
    let entry = this.cache.get(handler);
    if (!entry) {
      const meta = this.metadataOf(handler);
      if (!meta) return undefined;
      entry = {
        consumer: meta.consumer,
        policy: resolveHandlerPolicy(meta.consumer, this.options, meta.options),
        batch: meta.batch === true,
      };
      this.cache.set(handler, entry);
    }
    return entry;
  }
}
