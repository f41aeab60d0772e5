import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  errorLabel,
  PeriodicTask,
  pressureRowSql,
  type PressureRow,
  type PressureView,
} from '@nest-outbox/core/internal';
import type { TransactionalAdapter, TransactionHost } from '@nestjs-cls/transactional';
import { OutboxBackPressureError } from '../errors/outbox-back-pressure.error';
import { OutboxMetrics } from '../metrics/outbox.metrics';
import { OUTBOX_OPTIONS, OUTBOX_TRANSACTION_HOST } from '../outbox.constants';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';

/** How often a producer reads the pressure row (one primary-key read). */
const READ_INTERVAL_MS = 1000;

const STATES: readonly unknown[] = ['ok', 'warn', 'critical'];
const unknown = (reason: string): PressureView => ({ state: 'unknown', reasons: [reason] });

/**
 * The producer's view of the back-pressure state (with `pressure: true`): every second it reads
 * the row the relays publish. No row, a stale row or a failed read is `unknown` (never the last
 * state), and commands pass: refusing on figures nobody vouches for would turn a sampler's
 * outage into the application's. A non-critical command is refused while a fresh state is
 * `critical`; commands never query.
 * @publicApi
 */
@Injectable()
export class OutboxPressureService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxPressure');
  private readonly task: PeriodicTask<PressureView> | undefined;
  private readonly readSql: string;
  private last = unknown('not read yet');
  private retryAfterSeconds = 1;
  private failing = false;

  constructor(
    @Inject(OUTBOX_OPTIONS) private readonly options: ResolvedOutboxOptions,
    @Inject(OUTBOX_TRANSACTION_HOST)
    private readonly host: TransactionHost<TransactionalAdapter<unknown, unknown, unknown>>,
    private readonly metrics: OutboxMetrics,
  ) {
    this.readSql = pressureRowSql('OutboxModule', options.schema, options.table).read;
    if (!options.pressure) return;
    this.task = new PeriodicTask({
      intervalMs: READ_INTERVAL_MS,
      run: () => this.read(),
      onError: () => undefined, // read() answers `unknown` instead of failing
    });
  }

  onApplicationBootstrap(): void {
    this.task?.start();
    void this.task?.runNow();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task?.stop();
  }

  get enabled(): boolean {
    return this.task !== undefined;
  }

  /** The state last read, with the relay's figures and reasons; `unknown` before the first. */
  get latest(): PressureView {
    return this.last;
  }

  /** Reads the row now (or joins the read in progress). */
  async refresh(): Promise<PressureView> {
    return this.task ? this.task.runNow() : this.last;
  }

  /** @throws OutboxBackPressureError for a non-critical command while the state is `critical` @internal */
  admit(command: string, critical: boolean): void {
    if (critical || this.last.state !== 'critical') return;
    this.metrics.refused.inc({ command: this.metrics.bounded('command', command) });
    throw new OutboxBackPressureError(command, this.last.reasons ?? [], this.retryAfterSeconds);
  }

  private async read(): Promise<PressureView> {
    try {
      const [row] = await this.options
        .sqlExecutor(this.host.tx)
        .query<PressureRow>(this.readSql, []);
      this.failing = false;
      const view = row?.figures.pressure as PressureView | undefined;
      if (!row || !STATES.includes(view?.state))
        this.last = unknown('no relay has published the pressure of this outbox');
      else if (!row.fresh) {
        this.last = {
          ...unknown(`stale: figures ${Math.round(row.age_seconds)} s old, past their freshness`),
          sampledAt: new Date(row.sampled_at).toISOString(),
        };
      } else {
        this.last = view!;
        this.retryAfterSeconds = Math.max(1, Math.ceil(row.fresh_seconds / 2));
      }
    } catch (error) {
      if (!this.failing) this.logger.warn(`pressure row not read (${errorLabel(error)})`);
      this.failing = true;
      this.last = unknown('the pressure row could not be read');
    }
    return this.last;
  }
}
