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
import { errorLabel, PeriodicTask } from '@nest-outbox/core/internal';
import { InboxConsumerRegistry } from '../consumer/inbox-consumer.registry';
import { watchKafkaServers } from '../consumer/kafka-servers';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { InboxSchemaMissingError } from '../errors/inbox-schema-missing.error';
import { INBOX_OPTIONS } from '../inbox.constants';
import { InboxRoutes } from '../invoke/inbox-routes';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import { InboxPipeline } from '../pipeline/inbox.pipeline';
import { InboxPartitions } from '../partitions/inbox-partitions';
import { checkTopicRetention } from '../retention/topic-retention.checker';
import { InboxStore } from '../store/inbox.store';
import { InboxKafkaServer } from '../transport/inbox-kafka.server';
import type { InboxConsumerPort } from '../consumer/inbox-consumer.port';
import { InboxRmqServer } from '../rabbitmq/inbox-rmq.server';

/** DELETE statements per pruning run at most. */
const MAX_PRUNE_BATCHES = 100;

/**
 * The inbox's start-up and shutdown: tables, handlers, the link to the application's
 * `InboxKafkaServer` (any other Kafka server serving an inbox topic is refused), topic
 * retention check, pruning of processed rows past `retention.keepMs`. @internal
 */
@Injectable()
export class InboxLifecycle
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('InboxModule');
  private pruner: PeriodicTask<number> | undefined;
  private readonly partitions: InboxPartitions;
  private readonly unwatch: () => void;
  private readonly plain: ServerKafka[] = [];
  private readonly statuses: { unsubscribe(): void }[] = [];

  constructor(
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxRoutes) private readonly routes: InboxRoutes,
    @Inject(InboxPipeline) pipeline: InboxPipeline,
    @Inject(InboxConsumerRegistry) registry: InboxConsumerRegistry,
    @Inject(ModulesContainer) modules: ModulesContainer,
  ) {
    this.partitions = new InboxPartitions(options.tables);
    const link = {
      pipeline,
      routes: (topic: string) => routes.forTopic(topic),
      session: (port: InboxConsumerPort) => registry.attachPort(port),
      connectionName: options.connectionName,
    };
    const unwatch = watchKafkaServers(modules, (server) => {
      if (!(server instanceof InboxKafkaServer)) return this.watchPlain(server);
      server.useInbox(link);
    });
    const rmq = modules.getRpcTargetRegistry<unknown>().subscribe((server) => {
      if (server instanceof InboxRmqServer) server.useInbox(link);
    });
    this.unwatch = () => {
      unwatch();
      rmq.unsubscribe();
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
      if (String(s) === 'connected') refusePlainKafka([server], this.topics());
    });
    this.statuses.push(status);
  }

  private topics(): string[] {
    return [...new Set(this.routes.explore().flatMap((h) => h.topics))];
  }

  async onModuleInit(): Promise<void> {
    if (this.options.installSchema) await this.store.installSchema();
    if (!this.options.verifySchema) return;
    const missing = await this.store.missingTables();
    if (missing.length > 0) throw new InboxSchemaMissingError(missing);
  }

  async onApplicationBootstrap(): Promise<void> {
    const topics = this.topics();
    refusePlainKafka(this.plain, topics);
    await checkTopicRetention(this.options, topics, this.logger);
    const { keepMs, batchSize, intervalMs } = this.options.retention;
    // Also with no retention: a partitioned inbox table needs its partitions ahead.
    this.pruner = new PeriodicTask({
      intervalMs,
      run: () => this.prune(keepMs, batchSize),
      onError: (error) => this.logger.warn(`inbox prune failed stage=prune: ${errorLabel(error)}`),
    });
    this.pruner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unwatch();
    await this.pruner?.stop();
  }

  /**
   * Deletes processed rows older than `keepMs` in small batches; returns how many. On a
   * partitioned inbox table, maintains the partitions and deletes only in the default one.
   */
  private async prune(keepMs: number, batchSize: number): Promise<number> {
    const pass = await this.partitions.maintain(this.store.partitionDb(), keepMs);
    if (pass?.created.length)
      this.logger.log(`inbox partitions created: ${pass.created.join(', ')}`);
    if (pass?.dropped.length)
      this.logger.log(`inbox partitions dropped: ${pass.dropped.join(', ')}`);
    if (pass?.overlapping.length)
      this.logger.warn(
        `inbox partitions not created, the default partition holds rows of their range: ${pass.overlapping.join(', ')}`,
      );
    if (!Number.isFinite(keepMs)) return 0;
    const table = pass ? this.partitions.defaultPartition : undefined;
    let total = 0;
    for (let i = 0; i < MAX_PRUNE_BATCHES; i++) {
      const deleted = await this.store.pruneBatch(keepMs, batchSize, table);
      total += deleted;
      if (deleted < batchSize) break;
    }
    if (total > 0) this.logger.log(`pruned ${total} inbox row(s) older than ${keepMs} ms`);
    return total;
  }
}

/**
 * Refuses a Kafka server other than `InboxKafkaServer` that serves an inbox handler's topic
 * (its pattern handlers are registered once the application initialises). @internal
 */
export function refusePlainKafka(servers: readonly ServerKafka[], inboxTopics: string[]): void {
  for (const server of servers) {
    if (server instanceof InboxKafkaServer) continue;
    const served = inboxTopics.filter((topic) => server.getHandlers().has(topic));
    if (served.length === 0) continue;
    throw new InboxMisuseError(
      `@InboxHandler/@InboxBatchHandler on topic(s) '${served.join("', '")}' is served by ` +
        `${server.constructor.name}, which the inbox does not run on (stock kafkajs: no snappy, lz4 ` +
        'or zstd, no header cap). Connect the Kafka microservice with InboxKafkaServer from ' +
        "'@nest-outbox/inbox': app.connectMicroservice({ strategy: new InboxKafkaServer({...same " +
        'options...}) }) in place of { transport: Transport.KAFKA, options }.',
    );
  }
}
