import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
import { HandlerFailures } from './handler/failure/handler-failures';
import { DeadLetterSink } from './handler/failure/dead-letter.sink';
import { ExhaustedEventSettler } from './handler/failure/exhausted-event.settler';
import { RejectedRecordSettler } from './handler/failure/rejected-record.settler';
import { InboxHandlerPolicies } from './handler/pipeline/inbox-handler.policies';
import { InboxExecutor } from './handler/pipeline/inbox.executor';
import { InboxGuard } from './handler/pipeline/inbox.guard';
import { InboxInterceptor } from './handler/pipeline/inbox.interceptor';
import { InboxConfigurableModule, INBOX_OPTIONS_TYPE } from './inbox.module-definition';
import { InboxHandlerExplorer } from './lifecycle/inbox-handler.explorer';
import { InboxLifecycle } from './lifecycle/inbox.lifecycle';
import { resolveInboxOptions } from './options/inbox-options.resolver';
import { InboxStore } from './store/inbox.store';

/** Everything the `@InboxHandler` pipeline injects (the decorator names guard and interceptor). */
const PIPELINE = [
  InboxStore,
  InboxConsumerRegistry,
  InboxHandlerPolicies,
  DeadLetterSink,
  RejectedRecordSettler,
  ExhaustedEventSettler,
  HandlerFailures,
  InboxExecutor,
  InboxGuard,
  InboxInterceptor,
];

/**
 * The idempotent inbox for `@nestjs/microservices` Kafka consumers. Register it once
 * (`forRoot` / `forRootAsync` with `useFactory`, `useClass` or `useExisting`; global unless
 * `isGlobal: false`) next to the application's `ClsModule` with the transactional TypeORM
 * plugin (the inbox uses the application's `TransactionHost`, the one of `connectionName`;
 * it does not register ClsModule itself), then add `@InboxHandler(consumer)` to
 * `@EventPattern` methods.
 * @example
 * ```ts
 * InboxModule.forRoot({ kafka: { brokers: ['localhost:9092'] }, schema: 'shipping' })
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [...PIPELINE, InboxHandlerExplorer, InboxLifecycle],
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
