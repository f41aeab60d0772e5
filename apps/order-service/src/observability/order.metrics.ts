import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';

/** The order service's own metrics, on a registry of its own (the libraries have theirs). */
@Injectable()
export class OrderMetrics {
  readonly registry = new Registry();

  /**
   * Commands by outcome: `applied`, `conflict` (409), `not_found` (replays of an
   * Idempotency-Key: the outbox's `idempotent_requests_total`).
   */
  readonly commands = new Counter({
    name: 'orders_commands_total',
    help: 'Order commands by command and outcome',
    labelNames: ['command', 'outcome'],
    registers: [this.registry],
  });

  /** Ids the last reconciliation found missing or wrong, by kind. 0 when clean. */
  readonly mismatches = new Gauge({
    name: 'orders_reconciliation_mismatches',
    help: 'Mismatches found by the last reconciliation, by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });

  /** Reconciliation runs by verdict (`clean`, `mismatch`, `error`). */
  readonly reconciliations = new Counter({
    name: 'orders_reconciliation_runs_total',
    help: 'Reconciliation runs by verdict',
    labelNames: ['verdict'],
    registers: [this.registry],
  });
}
