import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { InboxMisuseError } from './errors/inbox.errors';
import { InboxHandlerPolicies } from './handler/inbox-handler.policies';
import { INBOX_OPTIONS } from './inbox.constants';
import type { ResolvedInboxOptions } from './inbox-options.resolver';
import { InboxPruner } from './retention/inbox.pruner';
import { checkTopicRetention } from './retention/topic-retention.checker';
import { InboxStore } from './store/inbox.store';

/** One `@InboxHandler` method found at start-up. @internal */
export interface DiscoveredInboxHandler {
  readonly controller: string;
  readonly method: string;
  readonly consumer: string;
  readonly topics: string[];
}

/**
 * Owns the inbox's start-up and shutdown: creates the tables (when asked), finds every
 * `@InboxHandler` (validating its options and that it is an `@EventPattern` on topics),
 * checks the topics' retention against the inbox retention, and runs the pruner.
 * @internal
 */
@Injectable()
export class InboxLifecycle
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('InboxModule');
  private pruner: InboxPruner | undefined;
  handlers: DiscoveredInboxHandler[] = [];

  constructor(
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxHandlerPolicies) private readonly policies: InboxHandlerPolicies,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.options.createSchema) await this.store.createSchema();
  }

  async onApplicationBootstrap(): Promise<void> {
    this.handlers = this.discover();
    const topics = [...new Set(this.handlers.flatMap((h) => h.topics))];
    await checkTopicRetention(this.options, topics, this.logger);
    const { prune, inboxRetentionMs, pruneBatchSize, pruneIntervalMs } = this.options.retention;
    if (prune && Number.isFinite(inboxRetentionMs)) {
      this.pruner = new InboxPruner(this.store, inboxRetentionMs, pruneBatchSize, this.logger);
      this.pruner.start(pruneIntervalMs);
    }
  }

  /** Runs one pruning pass now (also on its interval); returns the rows deleted. */
  async pruneNow(): Promise<number> {
    return this.pruner ? this.pruner.pruneOnce() : 0;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pruner?.stop();
  }

  private discover(): DiscoveredInboxHandler[] {
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
        const where = `${wrapper.name}.${method}`;
        if (patterns.length === 0 || patterns.some((p) => typeof p !== 'string')) {
          throw new InboxMisuseError(
            `${where}: @InboxHandler('${handler.consumer}') needs @EventPattern('<topic>') with topic names (got ${JSON.stringify(patterns)})`,
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
