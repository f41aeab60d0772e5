import { BadRequestException, Controller, Get, Inject, Query } from '@nestjs/common';
import { ORDER_SERVICE_CONFIG, type OrderServiceConfig } from '../order-service.config';
import type { ReconciliationReport } from './reconciliation-report';
import { ReconciliationService } from './reconciliation.service';

function date(name: string, value: string | undefined, fallback: Date): Date {
  if (value === undefined || value === '') return fallback;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new BadRequestException(`${name} must be an ISO date`);
  return parsed;
}

/**
 * `GET /reconciliation?from=<iso>&to=<iso>`: reconciles the orders created in `[from, to)`
 * (default: the job's window, ending `RECONCILE_SETTLE_MS` ago). Always 200; read `verdict`.
 */
@Controller('reconciliation')
export class ReconciliationController {
  constructor(
    private readonly reconciliation: ReconciliationService,
    @Inject(ORDER_SERVICE_CONFIG) private readonly config: OrderServiceConfig,
  ) {}

  @Get()
  run(@Query('from') from?: string, @Query('to') to?: string): Promise<ReconciliationReport> {
    const end = date('to', to, new Date(Date.now() - this.config.reconcileSettleMs));
    const start = date('from', from, new Date(end.getTime() - this.config.reconcileWindowMs));
    return this.reconciliation.run({ from: start, to: end });
  }
}
