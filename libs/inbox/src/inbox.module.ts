import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Registry } from 'prom-client';
import { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
import { HandlerFailures } from './handler/failure/handler-failures';
import { DeadLetterSink } from './handler/failure/dead-letter.sink';
import { ExhaustedEventSettler } from './handler/failure/exhausted-event.settler';
import { RejectedRecordSettler } from './handler/failure/rejected-record.settler';
import { InboxHandlerPolicies } from './handler/pipeline/inbox-handler.policies';
import { InboxExecutor } from './handler/pipeline/inbox.executor';
import { InboxGuard } from './handler/pipeline/inbox.guard';
import { InboxInterceptor } from './handler/pipeline/inbox.interceptor';
import { INBOX_METRICS_REGISTRY, INBOX_OPTIONS } from './inbox.constants';
import { InboxConfigurableModule, INBOX_MODULE_OPTIONS } from './inbox.module-definition';
import { InboxHandlerExplorer } from './lifecycle/inbox-handler.explorer';
import { InboxLifecycle } from './lifecycle/inbox.lifecycle';
import { InboxMetrics } from './metrics/inbox.metrics';
import type { InboxModuleOptions } from './options/inbox-options.interface';
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
    { provide: INBOX_METRICS_REGISTRY, useFactory: () => new Registry() },
    {
      provide: InboxMetrics,
      useFactory: (registry: Registry) => new InboxMetrics(registry),
      inject: [INBOX_METRICS_REGISTRY],
    },
    ...PIPELINE,
    InboxHandlerExplorer,
    InboxLifecycle,
  ],
  exports: [INBOX_OPTIONS, INBOX_METRICS_REGISTRY, InboxMetrics, ...PIPELINE, InboxLifecycle],
})
export class InboxModule extends InboxConfigurableModule {}
