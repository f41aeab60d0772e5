import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  BacklogPressure,
  errorLabel,
  PeriodicTask,
  type BacklogAssessment,
  type ResolvedPressureOptions,
  type SqlExecutor,
} from '@nest-outbox/core/internal';
import type { TransactionalAdapter, TransactionHost } from '@nestjs-cls/transactional';
import { OutboxBackPressureError } from '../errors/outbox-back-pressure.error';
import { OutboxMetrics } from '../metrics/outbox.metrics';
import { OUTBOX_OPTIONS, OUTBOX_TRANSACTION_HOST } from '../outbox.constants';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';
import { outboxPressureSql } from './outbox-pressure.sql';

/**
 * The process's back-pressure sampler (with the `pressure` option): one query every
 * `pressure.intervalMs` reads the backlog and its oldest age, draws the trend and the
 * forecast, and sets the state (`ok`, `warn`, `critical`). Commands never query: a
 * non-critical command reads the last state and is refused while it is `critical`.
 * @publicApi
 */
@Injectable()
export class OutboxPressureService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxPressure');
  private readonly settings: ResolvedPressureOptions | undefined;
  private readonly backlog: BacklogPressure | undefined;
  private readonly task: PeriodicTask<BacklogAssessment> | undefined;
  private sql: SqlExecutor | undefined;

  constructor(
    @Inject(OUTBOX_OPTIONS) private readonly options: ResolvedOutboxOptions,
    @Inject(OUTBOX_TRANSACTION_HOST)
    private readonly host: TransactionHost<TransactionalAdapter<unknown, unknown, unknown>>,
    private readonly metrics: OutboxMetrics,
  ) {
    this.settings = options.pressure || undefined;
    if (!this.settings) return;
    this.backlog = new BacklogPressure(this.settings);
    this.task = new PeriodicTask({
      intervalMs: this.settings.intervalMs,
      // Its statement grows with the backlog and with the dead index entries ahead of the
      // oldest pending row, and holds back their cleanup while it runs (as the relay's stats).
      minPauseFactor: 9,
      run: () => this.sample(),
      onError: (error) => {
        this.metrics.sampleFailures.inc();
        this.logger.warn(`pressure sample failed (${errorLabel(error)}); the state is kept`);
      },
    });
  }

  /** @internal */
  onApplicationBootstrap(): void {
    if (!this.task) return;
    // Outside any CLS context (start-up), `tx` is the adapter's non-transactional instance.
    this.sql = this.options.sqlExecutor(this.host.tx);
    this.task.start();
    void this.task.runNow().catch(() => undefined);
  }

  /** @internal */
  async beforeApplicationShutdown(): Promise<void> {
    await this.task?.stop();
  }

  /** True when the `pressure` option is set (a sampler runs). */
  get enabled(): boolean {
    return this.task !== undefined;
  }

  /** The last assessment (state, reasons, figures, forecast); undefined before the first. */
  get latest(): BacklogAssessment | undefined {
    return this.backlog?.latest;
  }

  /** Samples now (or joins the sample in progress). */
  async refresh(): Promise<BacklogAssessment | undefined> {
    return this.task ? this.task.runNow() : undefined;
  }

  /**
   * Lets a command through, or refuses a non-critical one while the state is `critical`.
   * @throws OutboxBackPressureError before any write
   * @internal
   */
  admit(command: string, critical: boolean): void {
    const reading = this.backlog?.latest;
    if (critical || reading?.state !== 'critical') return;
    this.metrics.refused.inc({ command: this.metrics.bounded('command', command) });
    const retryAfter = Math.max(1, Math.ceil((this.settings?.intervalMs ?? 1000) / 1000));
    throw new OutboxBackPressureError(command, reading.reasons, retryAfter);
  }

  private async sample(): Promise<BacklogAssessment> {
    const sql = this.sql ?? this.options.sqlExecutor(this.host.tx);
    const rows = await sql.query<{ backlog: number; oldest_age_ms: number | null }>(
      outboxPressureSql(this.options.qualifiedTable),
      [],
    );
    const reading = this.backlog!.observe({
      atMs: Date.now(),
      backlog: rows[0]?.backlog ?? 0,
      oldestAgeMs: Math.max(0, rows[0]?.oldest_age_ms ?? 0),
      drained: 0,
      drainWindowMs: 0,
    });
    this.metrics.observePressure(reading);
    return reading;
  }
}
