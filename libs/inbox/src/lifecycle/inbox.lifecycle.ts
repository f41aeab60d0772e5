import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { ServerKafka } from '@nestjs/microservices';
import { InboxConsumerRegistry } from '../consumer/inbox-consumer.registry';
import { watchKafkaServers } from '../consumer/kafka-servers';
import { refusePlainKafka } from './plain-kafka.refusal';
import { InboxSchemaMissingError } from '../errors/inbox-schema-missing.error';
import { INBOX_OPTIONS } from '../inbox.constants';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import { InboxPruner } from '../retention/inbox.pruner';
import { checkTopicRetention } from '../retention/topic-retention.checker';
import { InboxStore } from '../store/inbox.store';
import { InboxRoutes, type DiscoveredInboxHandler } from '../invoke/inbox-routes';
import { InboxPipeline } from '../pipeline/inbox.pipeline';
import { InboxKafkaServer } from '../transport/inbox-kafka.server';

/**
 * The inbox's start-up and shutdown: tables, handlers, the link to the application's
 * `InboxKafkaServer` (any other Kafka server serving an inbox topic is refused), topic
 * retention check, pruner. @internal
 */
@Injectable()
export class InboxLifecycle
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('InboxModule');
  private pruner: InboxPruner | undefined;
  private readonly unwatch: () => void;
  private readonly plain: ServerKafka[] = [];
  private readonly statuses: { unsubscribe(): void }[] = [];
  handlers: DiscoveredInboxHandler[] = [];

  constructor(
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxRoutes) private readonly routes: InboxRoutes,
    @Inject(InboxPipeline) pipeline: InboxPipeline,
    @Inject(InboxConsumerRegistry) registry: InboxConsumerRegistry,
    @Inject(ModulesContainer) modules: ModulesContainer,
  ) {
    const unwatch = watchKafkaServers(modules, (server) => {
      if (!(server instanceof InboxKafkaServer)) return this.watchPlain(server);
      server.useInbox({
        pipeline,
        routes: (topic) => routes.forTopic(topic),
        session: (port) => registry.attachPort(port),
        connectionName: options.connectionName,
      });
    });
    this.unwatch = () => {
      unwatch();
      for (const s of this.statuses.splice(0)) s.unsubscribe();
    };
  }

  /**
   * Another Kafka server is refused at start-up (below); one started before the application
   * initialised (`startAllMicroservices()` before `listen()`) is refused when its consumer
   * connects, before it subscribes: the error escapes as an uncaught exception and the process
   * stops before any record is consumed.
   */
  private watchPlain(server: ServerKafka): void {
    this.plain.push(server);
    const status = server.status.subscribe((s) => {
      if (String(s) === 'connected') refusePlainKafka([server], this.topics(this.routes.explore()));
    });
    this.statuses.push(status);
  }

  private topics(handlers: DiscoveredInboxHandler[]): string[] {
    return [...new Set(handlers.flatMap((h) => h.topics))];
  }

  async onModuleInit(): Promise<void> {
    if (this.options.installSchema) await this.store.installSchema();
    if (!this.options.verifySchema) return;
    const missing = await this.store.missingTables();
    if (missing.length > 0) throw new InboxSchemaMissingError(missing);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.handlers = this.routes.explore();
    const topics = this.topics(this.handlers);
    refusePlainKafka(this.plain, topics);
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
    this.unwatch();
    await this.pruner?.stop();
  }
}
