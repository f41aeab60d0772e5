/**
 * A real hybrid (HTTP + Kafka) Nest application for the inbox's integration tests: TypeORM
 * on the test PostgreSQL, ClsModule with the transactional plugin (registered by the app,
 * as in production), InboxModule, and one Kafka controller whose handler writes an effect
 * row through TransactionHost.tx (no unique constraint: a doubled effect is visible).
 */
import {
  Controller,
  Get,
  Inject,
  Module,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  type CanActivate,
  type ExceptionFilter,
  type INestApplication,
  type LoggerService,
  type NestInterceptor,
  type PipeTransform,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Ctx, EventPattern, KafkaContext } from '@nestjs/microservices';
import { ClsPluginTransactional, getTransactionHostToken } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { TransactionHost } from '@nestjs-cls/transactional';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { EventEnvelope } from '@nest-outbox/core';
import { ClsModule } from 'nestjs-cls';
import {
  InboxBatchHandler,
  InboxEvent,
  InboxEvents,
  InboxHandler,
  InboxKafkaServer,
  InboxModule,
  PlatformaticInboxServer,
  type InboxHandlerOptions,
  type InboxModuleOptions,
} from '@nest-outbox/inbox';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { InboxMetrics } from '../src/metrics/inbox.metrics';
import { DATABASE_URL, KAFKA_BROKERS } from '@test/support';
import type { KafkaConfig } from 'kafkajs';

/** What the test's handler does before and after writing its effect. */
export interface HandlerBehavior {
  before?(event: EventEnvelope, ctx: KafkaContext): Promise<void> | void;
  after?(event: EventEnvelope, ctx: KafkaContext): Promise<void> | void;
  /** `batchHandler`: each call's events, before their effects are written. */
  batch?(events: readonly EventEnvelope[]): Promise<void> | void;
}

export interface InboxTestAppOptions {
  readonly schema: string;
  readonly topics: string[];
  readonly groupId: string;
  readonly consumer?: string;
  readonly handler?: InboxHandlerOptions;
  readonly module?: Partial<InboxModuleOptions>;
  readonly behavior?: HandlerBehavior;
  readonly partitionsConsumedConcurrently?: number;
  readonly brokers?: string[];
  /** kafkajs client settings beyond the brokers (ssl, sasl, ...) of the consumer and the module. */
  readonly kafka?: Omit<KafkaConfig, 'brokers'>;
  readonly logger?: false | ('error' | 'warn' | 'log')[] | LoggerService;
  /** Records per chunk (one PostgreSQL transaction) of the InboxKafkaServer. @default 10 */
  readonly inboxBatchSize?: number;
  /** Extra kafkajs consumer config. */
  readonly consumerConfig?: Record<string, unknown>;
  /**
   * Run everything on a named data source and TransactionHost (`connectionName` of the
   * TypeORM module, the transactional plugin, InboxModule and InboxKafkaServer).
   */
  readonly connectionName?: string;
  /** The handler is an `@InboxBatchHandler` (one effect row per event of each call). */
  readonly batchHandler?: boolean;
  /** The application's own guards and interceptors on the handler method (beside the inbox's). */
  readonly methodGuards?: CanActivate[];
  readonly methodInterceptors?: NestInterceptor[];
  readonly methodPipes?: PipeTransform[];
  readonly methodFilters?: ExceptionFilter[];
  /** The application's global interceptors (`app.useGlobalInterceptors`). */
  readonly globalInterceptors?: NestInterceptor[];
  /** In place of the module's `InboxMetrics` (a test-only fault, e.g. `KillAfterCommitMetrics`). */
  readonly metrics?: InboxMetrics;
  /** The Kafka client of the inbox server. @default process.env.INBOX_TEST_CLIENT ?? 'kafkajs' */
  readonly client?: InboxTestClient;
}

/** The inbox servers the tests run on: `InboxKafkaServer` (kafkajs) or `PlatformaticInboxServer`. */
export const INBOX_TEST_CLIENTS = ['kafkajs', 'platformatic'] as const;
export type InboxTestClient = (typeof INBOX_TEST_CLIENTS)[number];

/** `SetMetadata` key on the test handler: what an application's guard reads with `Reflector`. */
export const HANDLER_MARK = 'inbox-test:handler-mark';

/** DDL of the effect table the test handler writes. */
export function effectsDdl(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS "${schema}".effects (
    consumer text NOT NULL, event_id uuid NOT NULL, aggregate_id text NOT NULL,
    kafka_partition int NOT NULL, kafka_offset bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`;
}

/** The test application's root module (controllers, TypeORM, ClsModule, InboxModule, terminus). */
export function buildAppModule(o: InboxTestAppOptions): Type {
  const consumer = o.consumer ?? 'test-projection';
  const behavior = o.behavior ?? {};

  @Controller()
  class EffectController {
    constructor(
      @Inject(getTransactionHostToken(o.connectionName))
      private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    ) {}

    @EventPattern(o.topics)
    @SetMetadata(HANDLER_MARK, 'effect-handler')
    @UseGuards(...(o.methodGuards ?? []))
    @UseInterceptors(...(o.methodInterceptors ?? []))
    @UsePipes(...(o.methodPipes ?? []))
    @UseFilters(...(o.methodFilters ?? []))
    @InboxHandler(consumer, o.handler)
    async onEvent(@InboxEvent() event: EventEnvelope, @Ctx() ctx: KafkaContext): Promise<void> {
      await behavior.before?.(event, ctx);
      await this.txHost.tx.query(
        `INSERT INTO "${o.schema}".effects (consumer, event_id, aggregate_id, kafka_partition, kafka_offset) VALUES ($1, $2, $3, $4, $5)`,
        [consumer, event.eventId, event.aggregateId, ctx.getPartition(), ctx.getMessage().offset],
      );
      await behavior.after?.(event, ctx);
    }
  }

  @Controller()
  class BatchEffectController {
    constructor(
      @Inject(getTransactionHostToken(o.connectionName))
      private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    ) {}

    @EventPattern(o.topics)
    @InboxBatchHandler(consumer, o.handler)
    async onEvents(
      @InboxEvents() events: readonly EventEnvelope[],
      @Ctx() ctx: KafkaContext,
    ): Promise<void> {
      await behavior.batch?.(events);
      for (const event of events) {
        await this.txHost.tx.query(
          `INSERT INTO "${o.schema}".effects (consumer, event_id, aggregate_id, kafka_partition, kafka_offset) VALUES ($1, $2, $3, $4, $5)`,
          [consumer, event.eventId, event.aggregateId, ctx.getPartition(), ctx.getMessage().offset],
        );
      }
    }
  }

  @Controller('health')
  class HealthController {
    constructor(
      @Inject(HealthCheckService) private readonly health: HealthCheckService,
      @Inject(InboxHealthIndicator) private readonly inbox: InboxHealthIndicator,
    ) {}

    @Get()
    @HealthCheck()
    check() {
      return this.health.check([() => this.inbox.isHealthy('inbox')]);
    }
  }

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        name: o.connectionName,
        type: 'postgres',
        url: DATABASE_URL,
        extra: { max: 10 },
        entities: [],
      }),
      ClsModule.forRoot({
        global: true,
        plugins: [
          new ClsPluginTransactional({
            connectionName: o.connectionName,
            imports: [TypeOrmModule],
            adapter: new TransactionalAdapterTypeOrm({
              dataSourceToken: getDataSourceToken(o.connectionName),
            }),
          }),
        ],
      }),
      InboxModule.forRoot({
        connectionName: o.connectionName,
        kafka: { ...o.kafka, brokers: o.brokers ?? KAFKA_BROKERS },
        retry: { maxAttempts: 5, baseDelayMs: 50, maxDelayMs: 400 },
        ...o.module,
        schema: o.schema,
        tuning: { installSchema: true, ...o.module?.tuning },
      }),
      TerminusModule,
    ],
    controllers: [o.batchHandler ? BatchEffectController : EffectController, HealthController],
    providers: [InboxHealthIndicator],
  })
  class AppModule {}
  return AppModule;
}

/** Starts the hybrid app and its Kafka consumer; resolves once the consumer has joined. */
export async function startInboxApp(o: InboxTestAppOptions): Promise<INestApplication> {
  const app = await createInboxApp(o);
  try {
    await app.init();
    await app.startAllMicroservices();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** The hybrid app with its Kafka microservice connected, neither initialised nor started. */
export async function createInboxApp(o: InboxTestAppOptions): Promise<INestApplication> {
  const logger = o.logger ?? ['error', 'warn'];
  const app = o.metrics
    ? (
        await Test.createTestingModule({ imports: [buildAppModule(o)] })
          .overrideProvider(InboxMetrics)
          .useValue(o.metrics)
          .compile()
      ).createNestApplication({ logger })
    : await NestFactory.create(buildAppModule(o), { logger });
  app.enableShutdownHooks();
  app.useGlobalInterceptors(...(o.globalInterceptors ?? []));
  const client = o.client ?? (process.env.INBOX_TEST_CLIENT as InboxTestClient | undefined);
  const Server = client === 'platformatic' ? PlatformaticInboxServer : InboxKafkaServer;
  app.connectMicroservice(
    {
      strategy: new Server({
        ...consumerOptions(o),
        connectionName: o.connectionName,
        inboxBatchSize: o.inboxBatchSize ?? 10,
      }),
    },
    { inheritAppConfig: true },
  );
  return app;
}

/** The Kafka microservice's options (client, consumer, subscribe, run) of the test app. */
export function consumerOptions(o: InboxTestAppOptions) {
  return {
    client: {
      clientId: `inbox-test`,
      brokers: o.brokers ?? KAFKA_BROKERS,
      logLevel: 1,
      ...o.kafka,
    },
    consumer: {
      groupId: o.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 100,
      retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 },
      ...o.consumerConfig,
    },
    subscribe: { fromBeginning: true },
    run: {
      autoCommit: false,
      partitionsConsumedConcurrently: o.partitionsConsumedConcurrently ?? 1,
    },
    postfixId: '',
  };
}
