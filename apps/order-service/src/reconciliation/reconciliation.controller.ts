import { Controller, Get, Inject, Query } from '@nestjs/common';
import { parsePgTimestamptz, PG_TIMESTAMPTZ_MIN_MS } from '../../../common/src';
import { ORDER_SERVICE_CONFIG, type OrderServiceConfig } from '../order-service.config';
import type { ReconciliationReport } from './reconciliation-report';
import { ReconciliationQuery } from './reconciliation.query';
import { ReconciliationService } from './reconciliation.service';

/**
 * `GET /reconciliation?from=<iso>&to=<iso>`: reconciles the orders created in `[from, to)`
 * (default: the job's window, ending `RECONCILE_SETTLE_MS` ago). 200 with the report (read
 * `verdict`); 400 naming `from`/`to` when one is not an ISO 8601 date within PostgreSQL's range.
 */
@Controller('reconciliation')
export class ReconciliationController {
  constructor(
    private readonly reconciliation: ReconciliationService,
    @Inject(ORDER_SERVICE_CONFIG) private readonly config: OrderServiceConfig,
  ) {}

  @Get()
  run(@Query() query: ReconciliationQuery): Promise<ReconciliationReport> {
    const end =
      parsePgTimestamptz(query.to) ?? new Date(Date.now() - this.config.reconcileSettleMs);
    // A default start before PostgreSQL's first instant would be refused by the query.
    const start =
      parsePgTimestamptz(query.from) ??
      new Date(Math.max(PG_TIMESTAMPTZ_MIN_MS, end.getTime() - this.config.reconcileWindowMs));
    return this.reconciliation.run({ from: start, to: end });
  }
}
