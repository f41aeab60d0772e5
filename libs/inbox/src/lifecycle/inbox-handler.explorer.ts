import { Inject, Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { InboxHandlerPolicies } from '../handler/pipeline/inbox-handler.policies';

/** One `@InboxHandler` method found at start-up. @internal */
export interface DiscoveredInboxHandler {
  readonly controller: string;
  readonly method: string;
  readonly consumer: string;
  readonly topics: string[];
}

/**
 * Finds every `@InboxHandler` method, validates its options and checks its `@EventPattern`. @internal
 */
@Injectable()
export class InboxHandlerExplorer {
  constructor(
    @Inject(InboxHandlerPolicies) private readonly policies: InboxHandlerPolicies,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
  ) {}

  explore(): DiscoveredInboxHandler[] {
    const found: DiscoveredInboxHandler[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = (prototype as Record<string, unknown>)[method];
        if (typeof fn !== 'function' || !this.policies.metadataOf(fn)) continue;
        const handler = this.policies.forHandler(fn)!; // validates the options now
        const patterns = (Reflect.getMetadata(PATTERN_METADATA, fn) ?? []) as unknown[];
        if (patterns.length === 0 || patterns.some((p) => typeof p !== 'string')) {
          throw new InboxMisuseError(
            `${wrapper.name}.${method}: @InboxHandler('${handler.consumer}') needs @EventPattern('<topic>') with topic names (got ${JSON.stringify(patterns)})`,
          );
        }
        found.push({
          controller: String(wrapper.name),
          method,
          consumer: handler.consumer,
          topics: patterns as string[],
        });
      }
    }
    return found;
  }
}
