import type { Logger } from '@nestjs/common';
import type { Consumer, ConsumerGroupJoinEvent, InstrumentationEvent } from 'kafkajs';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import { PartitionOffsetTracker } from '../offsets/partition-offset.tracker';

/** A partition paused because an event kept failing (`onExhausted: 'pause'`). @publicApi */
export interface PoisonPause {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly consumer: string;
  readonly eventId: string;
  readonly reason: string;
  readonly since: Date;
}

/** What the health indicator reports per Kafka consumer. @publicApi */
export interface ConsumerSnapshot {
  readonly groupId: string | undefined;
  readonly status: 'connected' | 'running' | 'rebalancing' | 'crashed' | 'stopped';
  readonly assigned: Readonly<Record<string, number[]>> | undefined;
  readonly paused: readonly PoisonPause[];
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * Runs a crashed consumer again (subscribe + run with its handlers), for example
 * `() => server.bindEvents(consumer)` of the ServerKafka that owns it. @publicApi
 */
export type ConsumerRecovery = () => Promise<void>;

/** First and longest pause between recovery attempts of a consumer kafkajs gave up on. */
const RECOVERY_FIRST_MS = 1000;
const RECOVERY_MAX_MS = 30_000;

/**
 * Everything the inbox knows about one kafkajs consumer (one per ServerKafka): the
 * assignment (from GROUP_JOIN), an offset tracker per assigned partition, the coalesced
 * committer, poison pauses and lag. Created the first time the consumer is seen.
 *
 * Commits: after a record's final result its partition's committable offset is committed
 * asynchronously; concurrent results are coalesced into one OffsetCommit request, at most
 * one request in flight. Between a REBALANCING event and the next GROUP_JOIN nothing is
 * committed; partitions revoked by the join get their tracker retired, so late results of
 * records still running there are never committed.
 * @internal
 */
export class ConsumerSession {
  private readonly trackers = new Map<string, PartitionOffsetTracker>();
  private readonly pauses = new Map<string, PoisonPause>();
  private assignment: Map<string, Set<number>> | undefined;
  private rebalancing = false;
  private status: ConsumerSnapshot['status'] = 'running';
  private groupId: string | undefined;
  private committing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;
  private readonly unsubscribe: (() => void)[] = [];

  private recovering = false;

  /**
   * @param recover runs the consumer again when kafkajs crashed it for good (it restarts
   *   only after retriable errors); without it such a consumer stays down until a restart
   */
  constructor(
    readonly consumer: Consumer,
    private readonly metrics: InboxMetrics,
    private readonly logger: Logger,
    private recover?: ConsumerRecovery,
  ) {
    const on = <T>(event: string, fn: (e: InstrumentationEvent<T>) => void) =>
      this.unsubscribe.push(consumer.on(event as never, fn as never) as unknown as () => void);
    const events = consumer.events;
    on<ConsumerGroupJoinEvent['payload']>(events.GROUP_JOIN, (e) => this.onJoin(e.payload));
    on(events.REBALANCING, () => {
      this.rebalancing = true;
      this.status = 'rebalancing';
    });
    on<{ error?: Error; restart?: boolean; groupId?: string }>(events.CRASH, (e) =>
      this.onCrash(e.payload),
    );
    on(events.STOP, () => (this.status = 'stopped'));
    on(events.CONNECT, () => {
      if (this.status === 'stopped') this.status = 'connected';
    });
    type BatchEvent = { topic: string; partition: number; offsetLag: string };
    on<BatchEvent>(events.END_BATCH_PROCESS, (e) =>
      this.metrics.lag.set(
        {
          group: this.groupId ?? '',
          topic: e.payload.topic,
          partition: String(e.payload.partition),
        },
        Number(e.payload.offsetLag),
      ),
    );
  }

  /** A record starts: returns the tracker it belongs to (its assignment epoch). */
  begin(topic: string, partition: number, offset: bigint): PartitionOffsetTracker {
    const k = key(topic, partition);
    let tracker = this.trackers.get(k);
    if (!tracker) {
      tracker = new PartitionOffsetTracker(topic, partition);
      this.trackers.set(k, tracker);
    }
    tracker.begin(offset);
    return tracker;
  }

  /** A record has its final result: commit what became committable. */
  finish(tracker: PartitionOffsetTracker, offset: bigint): void {
    tracker.finish(offset);
    this.scheduleCommit();
  }

  /** True while the partition is assigned to this consumer as far as we know. */
  isAssigned(tracker: PartitionOffsetTracker): boolean {
    return tracker.live && !this.closed && this.status !== 'stopped';
  }

  /** Pauses a partition at `offset` (it will be redelivered on resume). */
  pausePoisoned(pause: PoisonPause): void {
    this.consumer.pause([{ topic: pause.topic, partitions: [pause.partition] }]);
    this.consumer.seek({ topic: pause.topic, partition: pause.partition, offset: pause.offset });
    this.pauses.set(key(pause.topic, pause.partition), pause);
    this.metrics.paused.set({ topic: pause.topic, partition: String(pause.partition) }, 1);
  }

  /** Resumes a partition paused by a poison event; false when it was not paused. */
  resume(topic: string, partition: number): boolean {
    const k = key(topic, partition);
    if (!this.pauses.delete(k)) return false;
    this.metrics.paused.set({ topic, partition: String(partition) }, 0);
    this.consumer.resume([{ topic, partitions: [partition] }]);
    return true;
  }

  snapshot(): ConsumerSnapshot {
    const assigned = this.assignment
      ? Object.fromEntries(
          [...this.assignment].map(([t, ps]) => [t, [...ps].sort((a, b) => a - b)]),
        )
      : undefined;
    return {
      groupId: this.groupId,
      status: this.status,
      assigned,
      paused: [...this.pauses.values()],
    };
  }

  /** Commits what is committable now and waits for it. */
  async flush(): Promise<void> {
    this.scheduleCommit();
    await this.committing;
  }

  close(): void {
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** Sets how to run the consumer again after a crash kafkajs does not restart. */
  recoverWith(recover: ConsumerRecovery): void {
    this.recover = recover;
  }

  /** Says why the consumer crashed and whether kafkajs restarts it (never a payload). */
  private onCrash(payload: { error?: Error; restart?: boolean; groupId?: string }): void {
    this.status = 'crashed';
    const error = payload.error;
    const what = error ? `${error.name}: ${error.message}` : 'unknown error';
    const next = payload.restart
      ? 'kafkajs restarts it'
      : this.recover
        ? 'kafkajs does not restart it: the inbox runs it again'
        : 'kafkajs does not restart it: restart the process (health stays down until then)';
    this.logger.error(
      `consumer crashed group=${payload.groupId ?? this.groupId ?? '?'} stage=consume (${what}); ${next}`,
    );
    if (!payload.restart && this.recover) void this.recoverLoop(this.recover);
  }

  /** Connects and runs the consumer again, backing off until it works or the session closes. */
  private async recoverLoop(recover: ConsumerRecovery): Promise<void> {
    if (this.recovering) return;
    this.recovering = true;
    try {
      for (
        let delay = RECOVERY_FIRST_MS;
        !this.closed;
        delay = Math.min(RECOVERY_MAX_MS, delay * 2)
      ) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        if (this.closed) return;
        try {
          await this.consumer.connect();
          await recover();
          this.logger.log(`consumer group=${this.groupId ?? '?'} runs again after its crash`);
          return;
        } catch (error) {
          this.logger.error(
            `consumer group=${this.groupId ?? '?'} stage=recover failed (${String(error)}); next attempt in ${Math.min(RECOVERY_MAX_MS, delay * 2)} ms`,
          );
          await this.consumer.disconnect().catch(() => undefined);
        }
      }
    } finally {
      this.recovering = false;
    }
  }

  private onJoin(payload: ConsumerGroupJoinEvent['payload']): void {
    this.groupId = payload.groupId;
    const assignment = new Map<string, Set<number>>();
    for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
      assignment.set(topic, new Set(partitions));
    }
    for (const [k, tracker] of this.trackers) {
      if (!assignment.get(tracker.topic)?.has(tracker.partition)) {
        tracker.live = false; // revoked: late results of its records are never committed
        this.trackers.delete(k);
      }
    }
    for (const [k, pause] of this.pauses) {
      if (!assignment.get(pause.topic)?.has(pause.partition)) {
        this.pauses.delete(k);
        this.metrics.paused.set({ topic: pause.topic, partition: String(pause.partition) }, 0);
      }
    }
    this.assignment = assignment;
    this.rebalancing = false;
    this.status = 'running';
    this.scheduleCommit();
  }

  private scheduleCommit(): void {
    if (this.committing) {
      this.dirty = true;
      return;
    }
    this.committing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.commitLoop())
      .finally(() => (this.committing = undefined));
  }

  private async commitLoop(): Promise<void> {
    let failures = 0;
    do {
      this.dirty = false;
      if (this.closed || this.rebalancing) return;
      const batch = [...this.trackers.values()]
        .map((tracker) => ({ tracker, next: tracker.committable() }))
        .filter(
          (c): c is { tracker: PartitionOffsetTracker; next: bigint } => c.next !== undefined,
        );
      if (batch.length === 0) return;
      try {
        await this.consumer.commitOffsets(
          batch.map(({ tracker, next }) => ({
            topic: tracker.topic,
            partition: tracker.partition,
            offset: next.toString(),
          })),
        );
        for (const { tracker, next } of batch) tracker.committedUpTo(next);
        failures = 0;
      } catch (error) {
        failures += 1;
        this.logger.warn(
          `offset commit failed (attempt ${failures}), retrying: ${(error as Error).message}`,
        );
        if (failures >= 5) return; // the next result retries; redelivery is absorbed by the inbox
        this.dirty = true;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** failures)));
      }
    } while (this.dirty);
  }
}
