import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OUTBOX_WAKEUP, OutboxWakeup } from '@nest-outbox/core/internal';
import { createOutboxMetrics, OutboxMetrics } from './metrics/outbox.metrics';
import { OUTBOX_METRICS_REGISTRY, OUTBOX_OPTIONS } from './outbox.constants';
import { OutboxPressureService } from './pressure/outbox-pressure.service';
import { ConfigurableModuleClass, OPTIONS_TYPE } from './outbox.module-definition';
import { resolveOutboxOptions } from './outbox-options.validator';
import { OutboxService } from './outbox.service';
import { OutboxTransactionalExplorer } from './outbox-transactional.explorer';
import { OutboxIdempotency } from './idempotency/outbox-idempotency.service';

/**
 * The producer side: `OutboxService`, `@OutboxTransactional()` and the after-commit wake-up
 * (global unless `isGlobal: false`, so a `RelayModule` finds it). The application registers
 * nestjs-cls with the transactional plugin (the inbox shares its `TransactionHost`).
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: OUTBOX_WAKEUP, useFactory: () => new OutboxWakeup() },
    { provide: OutboxMetrics, useFactory: createOutboxMetrics, inject: [OUTBOX_OPTIONS] },
    {
      provide: OUTBOX_METRICS_REGISTRY,
      useFactory: (metrics: OutboxMetrics) => metrics.registry,
      inject: [OutboxMetrics],
    },
    OutboxPressureService,
    OutboxService,
    OutboxTransactionalExplorer,
    OutboxIdempotency,
  ],
  exports: [
    OutboxService,
    OutboxIdempotency,
    OutboxPressureService,
    OUTBOX_WAKEUP,
    OUTBOX_OPTIONS,
    OUTBOX_METRICS_REGISTRY,
  ],
})
export class OutboxModule extends ConfigurableModuleClass {
  /** Registers the outbox with these options (all optional: `forRoot()` uses the defaults). */
  static override forRoot(options: typeof OPTIONS_TYPE = {}): DynamicModule {
    const { connectionName, isGlobal, ...moduleOptions } = options;
    resolveOutboxOptions(moduleOptions, { connectionName, isGlobal });
    return super.forRoot(options);
  }
}
