import { Logger } from '@nestjs/common';
import { toKafkaHeaders } from '@nest-outbox/core';
import { classifyKafkaError, describeError } from '../errors/error-classifier';
import { NoTopicError, PublishTimeoutError } from '../errors/relay.errors';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import type { ErrorKind } from '../options/relay-options.interface';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../publisher/relay-publisher.interface';
import type { PgRelayStore } from '../store/pg-relay.store';
import type { ClaimedBatch, ClaimedRow, FailureUpdate, ReleaseUpdate } from '../store/relay-row';
import { backoffDelayMs } from './backoff';

/** A claimed row and the topic it goes to. */
interface Item {
  readonly row: ClaimedRow;
  readonly record: PublishRecord;
}

/** One aggregate's routable run inside a batch, in id order. */
interface KeyGroup {
  readonly items: Item[];
  /** The first row without a topic (parked) and the rows after it (released). */
  readonly unroutable: ClaimedRow[];
}

/** What one batch came to. @internal */
export interface BatchOutcome {
  published: number;
  leaseLost: number;
  failed: number;
  released: number;
}

interface Acked {
  readonly id: string;
  readonly partition: number;
  readonly offset: string;
  readonly row: ClaimedRow;
}

/** Sends take turns: `enter()` resolves, in call order, with the function that lets the next one in. */
class SendGate {
  private tail: Promise<void> = Promise.resolve();

  async enter(): Promise<() => void> {
    let open!: () => void;
    const turn = new Promise<void>((resolve) => (open = resolve));
    const before = this.tail;
    this.tail = before.then(() => turn);
    await before;
    return open;
  }
}

/**
 * Publishes one claimed batch and records the outcome: marks acknowledged rows (fenced by
 * the lease), backs off or parks the head of each failed aggregate, releases the rest.
 * No transaction is open while Kafka is called.
 * @internal
 */
export class BatchProcessor {
  private readonly logger = new Logger('RelayBatch');
  private readonly gate = new SendGate();

  constructor(
    private readonly store: PgRelayStore,
    private readonly publisher: RelayPublisher,
    private readonly options: ResolvedRelayOptions,
    private readonly metrics: RelayMetrics,
  ) {}

  /**
   * Publishes one batch and records its outcome. Sends of concurrent batches take turns on
   * the send gate (one producer request at a time, in claim order); the marks of one batch
   * run while the next batch is sent. Batches in flight together never share an aggregate:
   * a claim only takes aggregates whose head is free, and every row of a batch stays leased
   * until its outcome is recorded.
   * @param stopping true once the relay stops claiming: a batch that has not started sending
   *   by then is released, not sent
   */
  async process(
    batch: ClaimedBatch,
    shutdown: AbortSignal,
    stopping: () => boolean = () => false,
  ): Promise<BatchOutcome> {
    const hooks = this.options.raw.hooks;
    if (hooks?.onStage)
      await hooks.onStage(
        'after-claim',
        batch.rows.map((r) => r.eventId),
      );
    const outcome: BatchOutcome = { published: 0, leaseLost: 0, failed: 0, released: 0 };
    const groups = this.group(batch.rows);
    const failures: FailureUpdate[] = [];
    const releases: ReleaseUpdate[] = [];
    for (const g of groups) {
      if (g.unroutable.length === 0) continue;
      const error = new NoTopicError(g.unroutable[0]!.aggregateType);
      this.failRun(g.unroutable, '?', error, 'permanent', failures, releases);
    }
    const routable = groups.filter((g) => g.items.length > 0);
    const clean = routable.filter((g) => !g.items[0]!.row.suspect);
    const suspects = routable.filter((g) => g.items[0]!.row.suspect);
    const acked: Acked[] = [];
    let open = await this.gate.enter();
    try {
      if (stopping() || shutdown.aborted) {
        for (const g of routable)
          releases.push(...g.items.map((c) => ({ id: c.row.id, started: !c.row.suspect })));
        await this.finish(batch, [], failures, releases, outcome);
        return outcome;
      }
      await this.sendClean(batch, clean, shutdown, acked, failures, releases);
    } finally {
      open();
    }
    await this.finish(batch, acked, failures, releases, outcome);
    if (suspects.length === 0) return outcome;
    open = await this.gate.enter();
    try {
      for (const group of suspects) await this.publishSuspect(batch, group, shutdown, outcome);
    } finally {
      open();
    }
    return outcome;
  }

  private group(rows: readonly ClaimedRow[]): KeyGroup[] {
    const groups = new Map<string, KeyGroup>();
    for (const row of rows) {
      const key = `${row.aggregateType}\u0000${row.aggregateId}`;
      let group = groups.get(key);
      if (!group) {
        group = { items: [], unroutable: [] };
        groups.set(key, group);
      }
      const topic = this.options.router.topicFor(row.aggregateType, row.topic);
      // Once a row of the run has no topic, it and everything after it wait.
      if (topic === undefined || group.unroutable.length > 0) group.unroutable.push(row);
      else group.items.push({ row, record: this.record(row, topic) });
    }
    return [...groups.values()];
  }

  private record(row: ClaimedRow, topic: string): PublishRecord {
    return {
      topic,
      key: row.aggregateId,
      value: row.payload,
      headers: toKafkaHeaders({
        eventId: row.eventId,
        eventType: row.eventType,
        schemaVersion: row.schemaVersion,
        aggregateType: row.aggregateType,
        aggregateId: row.aggregateId,
        aggregateVersion: Number(row.aggregateVersion),
        occurredAt: row.occurredAt,
        headers: row.headers,
      }),
    };
  }

  /** Chunks of at most `maxRequestBytes`, in id order (a key's rows stay in order across chunks). */
  private chunks(groups: KeyGroup[]): Item[][] {
    const items = groups
      .flatMap((g) => g.items)
      .sort((a, b) => Number(a.row.id) - Number(b.row.id));
    const chunks: Item[][] = [];
    let current: Item[] = [];
    let bytes = 0;
    for (const item of items) {
      const size = item.record.value.length + item.record.key.length + 300;
      if (current.length > 0 && bytes + size > this.options.maxRequestBytes) {
        chunks.push(current);
        current = [];
        bytes = 0;
      }
      current.push(item);
      bytes += size;
    }
    if (current.length > 0) chunks.push(current);
    return chunks;
  }

  private async sendClean(
    batch: ClaimedBatch,
    groups: KeyGroup[],
    shutdown: AbortSignal,
    acked: Acked[],
    failures: FailureUpdate[],
    releases: ReleaseUpdate[],
  ): Promise<void> {
    const chunks = this.chunks(groups);
    let stop = false;
    for (const chunk of chunks) {
      if (stop || shutdown.aborted || !this.leaseLeft(batch)) {
        releases.push(...chunk.map((c) => ({ id: c.row.id, started: !c.row.suspect })));
        continue;
      }
      try {
        const acks = await this.send(
          chunk.map((c) => c.record),
          shutdown,
        );
        chunk.forEach((c, i) => acked.push({ id: c.row.id, ...acks[i]!, row: c.row }));
      } catch (error) {
        stop = true;
        if (shutdown.aborted) {
          releases.push(...chunk.map((c) => ({ id: c.row.id, started: !c.row.suspect })));
          continue;
        }
        await this.isolate(batch, chunk, error, shutdown, acked, failures, releases);
      }
    }
  }

  /**
   * A failed request with several aggregates: a permanent error is one event's fault, so
   * each aggregate is retried alone to find it; a transient one fails them all.
   */
  private async isolate(
    batch: ClaimedBatch,
    chunk: Item[],
    error: unknown,
    shutdown: AbortSignal,
    acked: Acked[],
    failures: FailureUpdate[],
    releases: ReleaseUpdate[],
  ): Promise<void> {
    const byKey = new Map<string, Item[]>();
    for (const c of chunk) {
      const key = `${c.row.aggregateType}\u0000${c.row.aggregateId}`;
      byKey.set(key, [...(byKey.get(key) ?? []), c]);
    }
    const kind = this.classify(error, chunk[0]!);
    if (kind !== 'permanent' || byKey.size === 1) {
      for (const items of byKey.values())
        this.failItems(items, error, this.classify(error, items[0]!), failures, releases);
      return;
    }
    for (const items of byKey.values()) {
      if (shutdown.aborted || !this.leaseLeft(batch)) {
        releases.push(...items.map((c) => ({ id: c.row.id, started: !c.row.suspect })));
        continue;
      }
      try {
        const acks = await this.send(
          items.map((c) => c.record),
          shutdown,
        );
        items.forEach((c, i) => acked.push({ id: c.row.id, ...acks[i]!, row: c.row }));
      } catch (inner) {
        this.failItems(items, inner, this.classify(inner, items[0]!), failures, releases);
      }
    }
  }

  /** Suspects (an earlier publish started and never finished) go alone, one row at a time. */
  private async publishSuspect(
    batch: ClaimedBatch,
    group: KeyGroup,
    shutdown: AbortSignal,
    outcome: BatchOutcome,
  ): Promise<void> {
    const failures: FailureUpdate[] = [];
    const releases: ReleaseUpdate[] = [];
    let stop = false;
    for (const item of group.items) {
      const row = item.row;
      if (stop || shutdown.aborted || !this.leaseLeft(batch)) {
        releases.push({ id: row.id, started: !row.suspect });
        continue;
      }
      if (row.suspect && !(await this.store.start(batch.leaseToken, row.id))) {
        stop = true; // lease lost before the start: someone else has the rest
        continue;
      }
      try {
        const [ack] = await this.send([item.record], shutdown);
        // Marked one by one: an event that kills the relay must not take its neighbours with it.
        await this.finish(batch, [{ id: row.id, ...ack!, row }], [], [], outcome);
      } catch (error) {
        stop = true;
        if (shutdown.aborted) releases.push({ id: row.id, started: true });
        else this.failItems([item], error, this.classify(error, item), failures, releases);
      }
    }
    await this.finish(batch, [], failures, releases, outcome);
  }

  private leaseLeft(batch: ClaimedBatch): boolean {
    return batch.leaseDeadline - Date.now() > this.options.publishTimeoutMs;
  }

  /** Sends with a timeout that really cancels (the publisher drops its producer on abort). */
  private async send(records: PublishRecord[], shutdown: AbortSignal): Promise<PublishAck[]> {
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new PublishTimeoutError(this.options.publishTimeoutMs)),
      this.options.publishTimeoutMs,
    );
    const hooks = this.options.raw.hooks;
    if (hooks?.onStage)
      await hooks.onStage(
        'before-send',
        records.map((r) => r.headers.event_id!),
      );
    const stopTimer = this.metrics.publishSeconds.startTimer();
    try {
      const acks = await this.publisher.publish(
        records,
        AbortSignal.any([timeout.signal, shutdown]),
      );
      this.metrics.brokerUp.set(1);
      return acks;
    } catch (error) {
      if (classifyKafkaError(error) === 'transient') this.metrics.brokerUp.set(0);
      throw error;
    } finally {
      clearTimeout(timer);
      stopTimer();
    }
  }

  private classify(error: unknown, { row, record }: Item): ErrorKind {
    const topic = record.topic;
    const custom = this.options.raw.classifyError?.(error, {
      eventId: row.eventId,
      eventType: row.eventType,
      aggregateType: row.aggregateType,
      aggregateId: row.aggregateId,
      topic,
      attempt: row.attempts + 1,
    });
    return custom ?? classifyKafkaError(error);
  }

  private failItems(
    items: Item[],
    error: unknown,
    kind: ErrorKind,
    failures: FailureUpdate[],
    releases: ReleaseUpdate[],
  ): void {
    this.failRun(
      items.map((i) => i.row),
      items[0]?.record.topic ?? '?',
      error,
      kind,
      failures,
      releases,
    );
  }

  /** The head carries the failure; the rest of its run goes back unpublished. */
  private failRun(
    rows: ClaimedRow[],
    topic: string,
    error: unknown,
    kind: ErrorKind,
    failures: FailureUpdate[],
    releases: ReleaseUpdate[],
  ): void {
    const [head, ...rest] = rows;
    if (!head) return;
    const attempt = head.attempts + (kind === 'throttled' ? 0 : 1);
    const exhausted = kind === 'transient' && attempt >= this.options.maxAttempts;
    const park = kind === 'permanent' || exhausted;
    const message = describeError(error);
    failures.push({
      id: head.id,
      counted: kind !== 'throttled',
      park,
      delayMs: park ? 0 : backoffDelayMs(Math.max(1, attempt), this.options.backoff),
      kind: exhausted ? `attempts exhausted (${attempt})` : kind,
      error: message,
    });
    const log = `event_id=${head.eventId} aggregate_id=${head.aggregateId} type=${head.eventType} topic=${topic} attempt=${attempt} stage=publish kind=${kind}`;
    if (park) {
      this.logger.error(`parked ${log}: ${message}`);
      this.metrics.parked.inc({ kind: exhausted ? 'exhausted' : 'permanent' });
    } else {
      this.logger.warn(`retry scheduled ${log}: ${message}`);
      this.metrics.retried.inc({ kind });
    }
    releases.push(...rest.map((r) => ({ id: r.id, started: !r.suspect })));
  }

  private async finish(
    batch: ClaimedBatch,
    acked: Acked[],
    failures: FailureUpdate[],
    releases: ReleaseUpdate[],
    outcome: BatchOutcome,
  ): Promise<void> {
    const hooks = this.options.raw.hooks;
    if (acked.length > 0) {
      if (hooks?.onStage)
        await hooks.onStage(
          'after-send',
          acked.map((a) => a.row.eventId),
        );
      const marked = await this.store.mark(
        batch.leaseToken,
        acked,
        hooks?.onStage
          ? () =>
              hooks.onStage!(
                'during-mark',
                acked.map((a) => a.row.eventId),
              )
          : undefined,
      );
      const lost = acked.filter((a) => !marked.has(a.id));
      outcome.published += marked.size;
      this.metrics.published.inc(marked.size);
      const now = Date.now();
      for (const a of acked) {
        if (marked.has(a.id)) this.metrics.delaySeconds.observe((now - a.row.createdAtMs) / 1000);
      }
      if (lost.length > 0) {
        outcome.leaseLost += lost.length;
        this.metrics.leaseLost.inc(lost.length);
        this.logger.warn(
          `lease lost: ${lost.length} published event(s) not marked (another relay may publish them again) stage=mark event_ids=${lost
            .slice(0, 10)
            .map((a) => a.row.eventId)
            .join(',')}`,
        );
      }
    }
    await this.store.fail(batch.leaseToken, failures);
    outcome.failed += failures.length;
    await this.store.release(batch.leaseToken, releases);
    outcome.released += releases.length;
    if (releases.length) this.metrics.released.inc(releases.length);
  }
}
