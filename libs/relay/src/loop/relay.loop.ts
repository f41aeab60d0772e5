import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Backoff, errorLabel, isDatabaseUnavailable, logLine } from '@nest-outbox/core/internal';
import { OUTBOX_WAKEUP, type OutboxWakeup } from '@nest-outbox/core/internal';
import { RelayClaimer } from '../claim/relay.claimer';
import type { ClaimedBatch } from '../claim/claimed-batch';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { emptyOutcome, type BatchOutcome, type RelayTotals } from '../outcome/batch-outcome';
import { OutcomeRecorder } from '../outcome/outcome.recorder';
import { BatchProcessor } from '../publish/batch.processor';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PUBLISHER } from '../relay.constants';
import { RelayStore } from '../store/relay.store';
import { NotificationListener } from '../wakeup/notification.listener';
import { RelayWaker } from '../wakeup/relay-waker';
import { WalRelay } from '../wal/wal-relay';

/** Part of the shutdown deadline kept for handing rows back and disconnecting after a cancel. */
const SHUTDOWN_RESERVE_MS = 250;

/** Batches in flight at once: one being sent, the next one claimed (or its marks running). */
const PIPELINE_DEPTH = 2;

/**
 * The relay loop: claim -> publish -> mark, pipelined two batches deep, woken in process or by
 * LISTEN, polling adaptively otherwise. Owns its start (bootstrap) and its stop (stop claiming,
 * finish or abandon in-flight by the deadline, release what was not started).
 * @publicApi
 */
@Injectable()
export class RelayLoop
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('RelayLoop');
  private readonly waker: RelayWaker;
  private readonly claimErrors: Backoff;
  private listener: NotificationListener | undefined;
  private unsubscribe: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  isPaused = false; // while an operator holds the loop paused (`pause()` until `resume()`)
  private abort = new AbortController();
  /** When the shutdown started by `stop()` must be over (`shutdownTimeoutMs` after it began). */
  private stopBy: number | undefined;
  private readonly counts: RelayTotals = { ...emptyOutcome(), batches: 0 };

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    @Inject(RELAY_PUBLISHER) private readonly publisher: RelayPublisher,
    private readonly claimer: RelayClaimer,
    private readonly processor: BatchProcessor,
    private readonly recorder: OutcomeRecorder,
    private readonly store: RelayStore,
    @Inject(RELAY_METRICS) private readonly metrics: RelayMetrics,
    private readonly walRelay: WalRelay,
    @Optional() @Inject(OUTBOX_WAKEUP) private readonly wakeup?: OutboxWakeup,
  ) {
    this.waker = new RelayWaker(options.pollMinMs, options.pollMaxMs);
    this.claimErrors = new Backoff(options.backoff);
  }

  /** True while the loop runs. */
  get isRunning(): boolean {
    if (this.wal) return this.wal.isRunning;
    return this.running !== undefined && !this.stopping;
  }

  /** Operator pause (idempotent): stops claiming, in-flight batches finish; health says paused. */
  async pause(): Promise<void> {
    this.isPaused = true;
    await this.stop();
  }

  /** Ends an operator pause (idempotent). */
  async resume(): Promise<void> {
    this.isPaused = false;
    await this.start();
  }

  /** What the batches came to since the start (for tests and health). */
  get totals(): Readonly<RelayTotals> {
    return this.counts;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.store.ensureSchema(this.options.installSchema, this.options.verifySchema);
    if (this.options.autoStart) await this.start();
  }

  /** Starts the loop (idempotent). */
  async start(): Promise<void> {
    if (this.wal) return this.startWal();
    if (this.running) return;
    this.stopping = false;
    this.abort = new AbortController();
    await this.publisher
      .connect()
      .catch((error: unknown) =>
        this.logger.warn(
          `broker not reachable at start-up (${errorLabel(error)}); the loop retries with backoff`,
        ),
      );
    this.unsubscribe = this.wakeup?.subscribe(() => this.waker.wake());
    if (this.options.listenChannel) {
      this.listener = new NotificationListener(
        this.options.pool,
        this.options.listenChannel,
        `${this.options.schema}.${this.options.table}`,
        () => this.waker.wake(),
      );
      await this.listener.start();
    }
    this.metrics.running.set(1);
    this.running = this.run();
    this.logger.log(`relay ${this.options.relayId} started on ${this.options.qualifiedTable}`);
  }

  /** `mode: 'wal'`: the WAL relay reads the slot (or stands by) instead of claiming. */
  private get wal(): WalRelay | undefined {
    return this.options.wal ? this.walRelay : undefined;
  }

  private async startWal(): Promise<void> {
    await this.publisher
      .connect()
      .catch((error: unknown) =>
        this.logger.warn(
          `broker not reachable at start-up (${errorLabel(error)}); publishes retry with backoff`,
        ),
      );
    await this.walRelay.start();
    this.metrics.running.set(1);
  }

  /** Ends any wait at once (same effect as an after-commit signal). */
  wake(): void {
    this.waker.wake();
  }

  /** Claims ahead: up to PIPELINE_DEPTH batches in flight, so claims and marks overlap sends. */
  private async run(): Promise<void> {
    const inflight = new Map<Promise<void>, ClaimedBatch>();
    try {
      while (!this.stopping) {
        // A batch that outlived its lease means a stalled broker or database: leave its rows
        // to other relays rather than claiming more here.
        const now = Date.now();
        const stalled = [...inflight.values()].some((b) => now >= b.leaseDeadline);
        if (inflight.size >= PIPELINE_DEPTH || stalled) {
          await Promise.race(inflight.keys());
          continue;
        }
        const claimed = await this.claimStep();
        if (typeof claimed === 'number') await this.waker.sleep(claimed);
        else if (claimed === 'work') this.waker.busy();
        else if (claimed !== 'idle') {
          const done: Promise<void> = this.processStep(claimed).finally(() =>
            inflight.delete(done),
          );
          inflight.set(done, claimed);
          this.waker.busy();
        } else if (inflight.size === 0) await this.waker.idle();
        else {
          // Whatever is left may be held by our own batch in flight: claim again when it
          // is done, on a wake-up, or at the next poll, whichever comes first.
          await Promise.race([...inflight.keys(), this.waker.idle()]);
          this.waker.cancel();
        }
      }
    } finally {
      await Promise.all(inflight.keys());
    }
  }

  /**
   * One claim: a batch to publish, what to do next, or how long to wait after an error. Marks
   * an outage kept come first: their rows stay leased to this relay until then.
   */
  private async claimStep(): Promise<ClaimedBatch | 'idle' | 'work' | number> {
    let batch;
    let stage = 'mark';
    try {
      if (this.recorder.pendingMarks > 0) this.add(await this.recorder.flushPending());
      stage = 'claim';
      const stopTimer = this.metrics.claimSeconds.startTimer();
      batch = await this.claimer.claim(this.options);
      stopTimer();
      this.claimErrors.reset();
    } catch (error) {
      const delay = this.claimErrors.next();
      const level = isDatabaseUnavailable(error) ? 'warn' : 'error'; // an outage passes
      this.logger[level](logLine(`${stage} failed`, { stage, error, retry_in_ms: delay }));
      return delay;
    }
    for (const p of batch.crashLoopParked) {
      this.metrics.parked.inc({ kind: 'crash-loop' });
      const event = { event_id: p.eventId, aggregate_id: p.aggregateId, type: p.eventType };
      this.logger.error(logLine('parked', { ...event, stage: 'claim', kind: 'crash-loop' }));
    }
    if (batch.rows.length === 0) return batch.crashLoopParked.length ? 'work' : 'idle';
    return batch;
  }

  /** Publishes a claimed batch and adds its outcome to the totals. */
  private async processStep(batch: ClaimedBatch): Promise<void> {
    try {
      this.add(await this.processor.process(batch, this.abort.signal, () => this.stopping));
      this.counts.batches++;
    } catch (error) {
      // A database error while recording the outcome: the lease expires and the rows return.
      this.logger.error(
        logLine('batch failed; its rows return when the lease expires', { stage: 'mark', error }),
      );
    }
  }

  private add(outcome: BatchOutcome): void {
    for (const k of ['published', 'leaseLost', 'failed', 'released'] as const)
      this.counts[k] += outcome[k];
  }

  /**
   * Stops claiming; waits for the in-flight batch until shortly before the deadline, then
   * cancels it (unsent rows are handed back): the whole shutdown fits in `shutdownTimeoutMs`.
   */
  async stop(): Promise<void> {
    if (this.wal) {
      await this.wal.stop();
      this.metrics.running.set(0);
      return;
    }
    if (!this.running) return;
    this.stopping = true;
    this.stopBy = Date.now() + this.options.shutdownTimeoutMs;
    this.waker.wake();
    this.unsubscribe?.();
    const total = this.options.shutdownTimeoutMs;
    const waitMs = total - Math.min(SHUTDOWN_RESERVE_MS, Math.floor(total / 4));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>(
      (resolve) => (timer = setTimeout(() => resolve('late'), waitMs)),
    );
    if ((await Promise.race([this.running, deadline])) === 'late') {
      this.logger.warn(
        `in-flight batch still running after ${waitMs} ms (shutdown deadline ${total} ms): cancelling it`,
      );
      this.abort.abort(new Error('relay shutting down'));
      await this.running;
    }
    clearTimeout(timer);
    this.add(await this.recorder.flushPendingBy(this.stopBy - SHUTDOWN_RESERVE_MS));
    this.running = undefined;
    await this.listener?.stop();
    this.listener = undefined;
    this.metrics.running.set(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
    // Whatever is left of the deadline (a stalled broker gets its sockets destroyed then).
    await this.publisher.disconnect(Math.max(0, (this.stopBy ?? Date.now() + 1000) - Date.now()));
  }
}
