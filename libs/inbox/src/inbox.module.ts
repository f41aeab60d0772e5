import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
import { HandlerFailures } from './settle/handler-failures';
import { DeadLetterSink } from './settle/dead-letter.sink';
import { InboxConfigurableModule, INBOX_OPTIONS_TYPE } from './inbox.module-definition';
import { InboxRoutes } from './invoke/inbox-routes';
import { InboxLifecycle } from './lifecycle/inbox.lifecycle';
import { InboxPipeline } from './pipeline/inbox.pipeline';
import { resolveInboxOptions } from './options/inbox-options.resolver';
import { InboxStore } from './store/inbox.store';

/** Everything the inbox's pipeline injects. */
const PIPELINE = [
  InboxStore,
  InboxConsumerRegistry,
  DeadLetterSink,
  HandlerFailures,
  InboxPipeline,
];

/**
 * The idempotent inbox for `@nestjs/microservices` Kafka consumers. Register it once
 * (`forRoot` / `forRootAsync` with `useFactory`, `useClass` or `useExisting`; global unless
 * `isGlobal: false`) next to the application's `ClsModule` with the transactional TypeORM
 * plugin (the inbox uses the application's `TransactionHost`, the one of `connectionName`;
 * it does not register ClsModule itself), then add `@InboxHandler(consumer)` to
 * `@EventPattern` methods and serve them with `InboxKafkaServer`.
 * @example
 * ```ts
 * InboxModule.forRoot({ kafka: { brokers: ['localhost:9092'] }, schema: 'shipping' })
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [...PIPELINE, InboxRoutes, InboxLifecycle],
  exports: [...PIPELINE],
})
export class InboxModule extends InboxConfigurableModule {
  /** Registers the inbox with these options (checked at once, before any connection opens). */
  static override forRoot(options: typeof INBOX_OPTIONS_TYPE): DynamicModule {
    const { isGlobal: _global, connectionName, ...moduleOptions } = options;
    resolveInboxOptions(moduleOptions, connectionName);
    return super.forRoot(options);
  }
}
