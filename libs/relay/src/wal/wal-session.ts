import type { Logger } from '@nestjs/common';
import { Backoff, logLine } from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { AsideWrites, type WalAside } from './wal-aside';
import type { WalDispatcher } from './wal-dispatcher';
import type { WalSql } from './wal-schema.sql';
import { lsnBefore, WalStream, type WalItem } from './wal-stream';

/** What a session works with, owned by `WalRelay`. @internal */
export interface WalSessionDeps {
  readonly options: ResolvedRelayOptions;
  readonly wal: { slot: string; publication: string; heartbeatMs: number; releasedPollMs: number };
  readonly pool: Pool;
  readonly sql: WalSql;
  readonly aside: WalAside;
  readonly dispatcher: WalDispatcher;
  readonly logger: Logger;
  /** Runs `work` alone: batches of the stream and rounds of released events never overlap. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * One reading of the slot, from its confirmed position: batches of committed transactions are
 * published in commit order, then written aside where parked or held, then confirmed. Also
 * publishes released events, and emits a heartbeat while the database is idle.
 * @internal
 */
export class WalSession {
  readonly abort = new AbortController();
  private readonly stream: WalStream;
  private readonly queue: WalItem[] = [];
  private queuedRows = 0;
  private inProcess: readonly WalItem[] = [];
  private confirmed: string;
  private lastItemAt = Date.now();
  private lastReleasedAt = 0;
  private draining = false;
  private wake: (() => void) | undefined;
  private readerWake: (() => void) | undefined;
  private readonly writeErrors: Backoff;

  constructor(
    private readonly deps: WalSessionDeps,
    slotConfirmed: string,
  ) {
    this.confirmed = slotConfirmed === '0/0' ? slotConfirmed : lsnBefore(slotConfirmed);
    this.writeErrors = new Backoff(deps.options.backoff);
    this.stream = new WalStream(
      deps.options.pool,
      deps.wal.slot,
      deps.wal.publication,
      deps.options,
      {
        item: (item) => this.enqueue(item),
        keepalive: () => void this.stream.acknowledge(this.confirmed),
        ended: (error) => this.abort.abort(error ?? new Error('replication stream ended')),
      },
    );
    this.abort.signal.addEventListener('abort', () => this.poke());
  }

  /** Age of the oldest commit read and not yet confirmed, in seconds (0: none). */
  get lagSeconds(): number {
    const oldest = this.inProcess[0] ?? this.queue[0];
    return oldest ? Math.max(0, (Date.now() - oldest.atMs) / 1000) : 0;
  }

  /** Starts reading; rejects when the slot is active elsewhere or unreachable. */
  start(): Promise<void> {
    return this.stream.start();
  }

  /** Publishes and confirms until the stream ends or `drain()` was called. */
  async run(): Promise<void> {
    const tickMs = Math.min(this.deps.wal.heartbeatMs, this.deps.wal.releasedPollMs);
    while (!this.abort.signal.aborted && !(this.draining && this.queue.length === 0)) {
      if (Date.now() - this.lastReleasedAt >= this.deps.wal.releasedPollMs) await this.released();
      if (this.queue.length > 0) await this.batch();
      else {
        if (Date.now() - this.lastItemAt >= this.deps.wal.heartbeatMs) this.heartbeat();
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, tickMs).unref();
        });
      }
    }
  }

  /** Stops reading after what was read is confirmed (`end()` cuts it short). */
  drain(): void {
    this.draining = true;
    this.poke();
  }

  async end(): Promise<void> {
    this.abort.abort(new Error('relay stopping'));
    await this.stream.stop().catch(() => undefined);
  }

  private async enqueue(item: WalItem): Promise<void> {
    this.queue.push(item);
    this.queuedRows += item.rows.length;
    this.lastItemAt = Date.now();
    this.poke();
    // Back-pressure: the stream reads no further while two batches wait.
    while (this.queuedRows > 2 * this.deps.options.batchSize && !this.abort.signal.aborted)
      await new Promise<void>((resolve) => (this.readerWake = resolve));
  }

  private poke(): void {
    this.wake?.();
    this.readerWake?.();
  }

  /** Whole transactions up to `batchSize` rows: published, written aside, confirmed. */
  private async batch(): Promise<void> {
    let rows = 0;
    let count = 0;
    while (count < this.queue.length && (count === 0 || rows < this.deps.options.batchSize))
      rows += this.queue[count++]!.rows.length;
    const items = (this.inProcess = this.queue.splice(0, count));
    this.queuedRows -= rows;
    this.readerWake?.();
    const signal = this.abort.signal;
    await this.deps.exclusive(async () => {
      const writes = new AsideWrites();
      const all = items.flatMap((i) => i.rows);
      if (all.length > 0)
        await this.deps.dispatcher.dispatch(all, this.deps.aside.streamSink(writes), signal);
      await this.written(() => this.deps.aside.write(writes));
    });
    const last = items.at(-1)!.confirm;
    if (await this.stream.acknowledge(last)) this.confirmed = last;
    this.inProcess = [];
  }

  /** A round of released events, if any aggregate is held. */
  private async released(): Promise<void> {
    this.lastReleasedAt = Date.now();
    if (this.deps.aside.heldAggregates === 0) return;
    const settled = await this.deps.exclusive(() =>
      this.written(() => this.deps.aside.releasedRound(this.deps.dispatcher, this.abort.signal)),
    );
    // A full round (a backlog set aside): the next one comes at once.
    if (settled >= this.deps.options.batchSize) this.lastReleasedAt = 0;
  }

  /** Retries a write of the database with backoff until it succeeds or the session ends. */
  private async written<T>(write: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        const result = await write();
        this.writeErrors.reset();
        return result;
      } catch (error) {
        this.abort.signal.throwIfAborted();
        const retryMs = this.writeErrors.next();
        this.deps.logger.warn(
          logLine('write aside failed', { stage: 'aside', error, retry_in_ms: retryMs }),
        );
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
  }

  /** A message in the WAL of this database: read back, it lets the slot's position move on. */
  private heartbeat(): void {
    this.lastItemAt = Date.now();
    this.deps.pool
      .query(this.deps.sql.heartbeat)
      .catch((error: unknown) =>
        this.deps.logger.warn(logLine('heartbeat failed', { stage: 'heartbeat', error })),
      );
  }
}
