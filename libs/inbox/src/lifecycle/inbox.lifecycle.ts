import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { InboxSchemaMissingError } from '../errors/inbox-schema-missing.error';
import { INBOX_OPTIONS } from '../inbox.constants';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import { InboxPruner } from '../retention/inbox.pruner';
import { checkTopicRetention } from '../retention/topic-retention.checker';
import { InboxStore } from '../store/inbox.store';
import { InboxHandlerExplorer, type DiscoveredInboxHandler } from './inbox-handler.explorer';

/** The inbox's start-up and shutdown: tables, handlers, topic retention check, pruner. @internal */
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
    @Inject(InboxHandlerExplorer) private readonly explorer: InboxHandlerExplorer,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.options.installSchema) await this.store.installSchema();
    if (!this.options.verifySchema) return;
    const missing = await this.store.missingTables();
    if (missing.length > 0) throw new InboxSchemaMissingError(missing);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.handlers = this.explorer.explore();
    const topics = [...new Set(this.handlers.flatMap((h) => h.topics))];
    await checkTopicRetention(this.options, topics, this.logger);
    const { keepMs, batchSize, intervalMs } = this.options.retention;
    if (Number.isFinite(keepMs)) {
      this.pruner = new InboxPruner(
        this.store,
        { retentionMs: keepMs, batchSize, intervalMs },
        this.logger,
      );
      this.pruner.start();
    }
  }

  /** Runs one pruning pass now (also on its interval); returns the rows deleted. */
  async pruneNow(): Promise<number> {
    return this.pruner ? this.pruner.pruneOnce() : 0;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pruner?.stop();
  }
}
