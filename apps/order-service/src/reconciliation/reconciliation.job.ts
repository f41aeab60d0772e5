import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { describeErrorWithoutValues } from '../../../common/src';
import { ORDER_SERVICE_CONFIG, type OrderServiceConfig } from '../order-service.config';
import { ReconciliationService } from './reconciliation.service';

/**
 * Runs the reconciliation every `RECONCILE_INTERVAL_MS` over the last `RECONCILE_WINDOW_MS`
 * (ending `RECONCILE_SETTLE_MS` ago) and logs a mismatch with its ids; the metric
 * `orders_reconciliation_mismatches{kind}` is what to alert on.
 */
@Injectable()
export class ReconciliationJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Reconciliation');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly reconciliation: ReconciliationService,
    @Inject(ORDER_SERVICE_CONFIG) private readonly config: OrderServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.reconcileIntervalMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => (this.running = undefined));
    }, this.config.reconcileIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    const to = new Date(Date.now() - this.config.reconcileSettleMs);
    const from = new Date(to.getTime() - this.config.reconcileWindowMs);
    try {
      const report = await this.reconciliation.run({ from, to });
      if (report.verdict === 'clean') {
        this.logger.log(
          `clean: ${report.confirmedOrders} confirmed orders, ${report.shipments} shipments`,
        );
        return;
      }
      const ids = (list: readonly string[]) => `${list.length} [${list.slice(0, 10).join(', ')}]`;
      this.logger.error(
        `MISMATCH in ${report.window.from}..${report.window.to}: ` +
          `missing events ${ids(report.missingEvents)}, missing shipments ${ids(report.missingShipments)}, ` +
          `unexpected shipments ${ids(report.unexpectedShipments)}, ` +
          `uncancelled shipments ${ids(report.uncancelledShipments)}`,
      );
    } catch (error) {
      this.logger.warn(`reconciliation could not run: ${describeErrorWithoutValues(error)}`);
    }
  }
}
