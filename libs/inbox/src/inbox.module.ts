import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
import { DeadLetterSink } from './handler/dead-letter.sink';
import { InboxHandlerPolicies } from './handler/inbox-handler.policies';
import { InboxExecutor } from './handler/inbox.executor';
import { InboxGuard } from './handler/inbox.guard';
import { InboxInterceptor } from './handler/inbox.interceptor';
import { INBOX_METRICS_REGISTRY, INBOX_OPTIONS } from './inbox.constants';
import { InboxLifecycle } from './inbox.lifecycle';
import { InboxConfigurableModule, INBOX_MODULE_OPTIONS } from './inbox.module-definition';
import type { InboxModuleOptions } from './inbox.options';
import { resolveInboxOptions } from './inbox-options.resolver';
import { inboxModuleMetrics } from './metrics/inbox-metrics.factory';
import { InboxMetrics } from './metrics/inbox.metrics';
import { InboxStore } from './store/inbox.store';

/**
 * The idempotent inbox for `@nestjs/microservices` Kafka consumers. Global: register it
 * once (`forRoot` / `forRootAsync` with `useFactory`, `useClass` or `useExisting`) next to
 * the application's `ClsModule` with the transactional TypeORM plugin (the inbox uses the
 * application's `TransactionHost`; it does not register ClsModule itself), then add
 * `@InboxHandler(consumer)` to `@EventPattern` methods.
 * @publicApi
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: INBOX_OPTIONS,
      useFactory: (options: InboxModuleOptions) => resolveInboxOptions(options),
      inject: [INBOX_MODULE_OPTIONS],
    },
    {
      provide: InboxMetrics,
      useFactory: () => {
        const { make, registry } = inboxModuleMetrics();
        return new InboxMetrics(registry, make);
      },
    },
    {
      provide: INBOX_METRICS_REGISTRY,
      useFactory: (metrics: InboxMetrics) => metrics.registry,
      inject: [InboxMetrics],
    },
    InboxStore,
    InboxConsumerRegistry,
    InboxHandlerPolicies,
    DeadLetterSink,
    InboxExecutor,
    InboxGuard,
    InboxInterceptor,
    InboxLifecycle,
  ],
  exports: [
    INBOX_OPTIONS,
    INBOX_METRICS_REGISTRY,
    InboxMetrics,
    InboxStore,
    InboxConsumerRegistry,
    InboxHandlerPolicies,
    DeadLetterSink,
    InboxExecutor,
    InboxGuard,
    InboxInterceptor,
    InboxLifecycle,
  ],
})
export class InboxModule extends InboxConfigurableModule {}
