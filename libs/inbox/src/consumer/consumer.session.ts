import type { Logger } from '@nestjs/common';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import {
  partitionKey,
  type ConsumerRecovery,
  type ConsumerSnapshot,
  type PoisonPause,
  type UndecodableRecord,
} from './consumer-snapshot';
import { BatchWindows } from './batch-windows';
import { CrashRecovery } from './crash.recovery';
import { GroupLag } from './group-lag';
import type { CrashPayload, HandedBatchEnd, InboxConsumerPort } from './inbox-consumer.port';
import { OffsetCommitter } from './offset.committer';
import { OffsetRefusals } from './offsets-in-log';
import { PartitionOffsetTracker } from './partition-offset.tracker';
import { PoisonPauses } from './poison-pauses';

/**
 * All the inbox knows of one Kafka consumer (through its port): status, assignment, offset trackers (never past
 * the last high watermark), committer, pauses, crash recovery, lag, batch windows. Nothing is
 * committed between REBALANCING and GROUP_JOIN; revoked partitions and a stopped consumer retire
 * their trackers, so late results are never committed and re-reads are absorbed. @internal
 */
export class ConsumerSession {
  private readonly trackers = new Map<string, PartitionOffsetTracker>();
  private readonly logEnds = new Map<string, bigint>();
  readonly refusals: OffsetRefusals;
  private readonly pauses: PoisonPauses;
  private readonly committer: OffsetCommitter;
  private readonly recovery: CrashRecovery;
  private readonly windows = new BatchWindows();
  /** The group's lag gauges (refreshed from the broker by the registry). */
  readonly lag: GroupLag;
  private assignment: Map<string, Set<number>> | undefined;
  private rebalancing = false;
  private status: ConsumerSnapshot['status'] = 'running';
  private groupId: string | undefined;
  private closed = false;
  private undecodable: ConsumerSnapshot['undecodable'] = { records: 0 };
  private readonly unsubscribe: () => void;

  /**
   * @param recover runs the consumer again when its client crashed it for good
   * @param random the recovery backoff's jitter draw
   */
  constructor(
    consumer: InboxConsumerPort,
    private readonly metrics: InboxMetrics,
    private readonly logger: Logger,
    private recover?: ConsumerRecovery,
    random?: () => number,
  ) {
    this.pauses = new PoisonPauses(consumer, metrics);
    this.refusals = new OffsetRefusals(metrics, logger);
    this.committer = new OffsetCommitter(
      consumer,
      logger,
      () => this.trackers.values(),
      () => !this.closed && !this.rebalancing,
      (trackers) => trackers.forEach((t) => this.lag.uncommitted(t)),
    );
    this.lag = new GroupLag(metrics, () => this.groupId ?? '');
    this.recovery = new CrashRecovery(consumer, logger, () => this.groupId ?? '?', random);
    this.unsubscribe = consumer.listen({
      join: (groupId, assignment) => this.onJoin(groupId, assignment),
      rebalancing: () => {
        this.rebalancing = true;
        this.status = 'rebalancing';
      },
      crash: (p) => this.onCrash(p),
      stop: () => {
        this.status = 'stopped';
        this.retireAll();
      },
      connect: () => {
        if (this.status === 'stopped') this.status = 'connected';
      },
      named: (groupId) => this.named(groupId),
      batchStart: (p) => {
        this.windows.start(p);
        this.logEnds.set(partitionKey(p.topic, p.partition), BigInt(p.highWatermark));
      },
      batchEnd: (p) => this.onBatchEnd(p),
    });
  }

  /** Its consumer connected but has not joined its group yet: not running until it does. */
  starting(): void {
    if (this.assignment === undefined && this.status === 'running') this.status = 'starting';
  }

  /** A record starts: returns the tracker it belongs to (its assignment epoch). */
  begin(topic: string, partition: number, offset: bigint): PartitionOffsetTracker {
    if (this.status === 'stopped' || this.status === 'crashed') {
      const outside = new PartitionOffsetTracker(topic, partition); // not in any assignment
      outside.live = false;
      return outside;
    }
    const k = partitionKey(topic, partition);
    let tracker = this.trackers.get(k);
    if (!tracker) {
      tracker = new PartitionOffsetTracker(topic, partition, () => this.logEnds.get(k));
      this.trackers.set(k, tracker);
    }
    tracker.begin(offset);
    return tracker;
  }

  /** A record has its final result: commit what became committable. */
  finish(tracker: PartitionOffsetTracker, offset: bigint): void {
    tracker.finish(offset);
    this.windows.finished(tracker, [offset]);
    this.lag.uncommitted(tracker);
    this.committer.schedule();
  }

  /** Records of one partition got their final results together (a committed chunk). */
  finishAll(tracker: PartitionOffsetTracker, offsets: readonly bigint[]): void {
    if (offsets.length === 0) return;
    for (const offset of offsets) tracker.finish(offset);
    this.windows.finished(tracker, offsets);
    this.lag.uncommitted(tracker);
    this.committer.schedule();
  }

  /** True while the partition is assigned to this consumer as far as we know. */
  isAssigned(tracker: PartitionOffsetTracker): boolean {
    return tracker.live && !this.closed && this.status !== 'stopped';
  }

  /** Pauses a partition at `offset` (it will be redelivered on resume). */
  pausePoisoned(pause: PoisonPause): void {
    this.pauses.pause(pause);
  }

  /** Resumes a partition paused by a poison event; false when it was not paused. */
  resume(topic: string, partition: number): boolean {
    return this.pauses.resume(topic, partition);
  }

  /** A record of a batch that could not be decompressed was settled as rejected. */
  noteUndecodable(last: UndecodableRecord): void {
    this.undecodable = { records: this.undecodable.records + 1, last };
  }

  snapshot(): ConsumerSnapshot {
    const assigned = this.assignment
      ? Object.fromEntries(
          [...this.assignment].map(([t, ps]) => [t, [...ps].sort((a, b) => a - b)]),
        )
      : undefined;
    const { groupId, status, undecodable, pauses } = this;
    return { groupId, status, assigned, paused: pauses.list(), undecodable };
  }

  /** Commits what is committable now and waits for it. */
  flush(): Promise<void> {
    return this.committer.flush();
  }

  close(): void {
    this.closed = true;
    this.committer.close();
    this.recovery.close();
    this.unsubscribe();
  }

  /** Sets how to run the consumer again after a crash its client does not restart. */
  recoverWith(recover: ConsumerRecovery): void {
    this.recover = recover;
  }

  private onBatchEnd(p: HandedBatchEnd): void {
    const last = this.windows.end(p);
    if (last !== undefined && !this.rebalancing)
      this.finish(this.begin(p.topic, p.partition, last), last);
  }

  /** The client crashed the consumer: nothing it holds counts any more; recovery decides the rest. */
  private onCrash(payload: CrashPayload): void {
    this.status = 'crashed';
    this.named(payload.groupId); // a consumer crashing before it ever joined
    this.retireAll();
    this.recovery.crashed(payload, this.recover);
  }

  /** The consumer left its group: nothing it holds may be committed or stay paused. */
  private retireAll(): void {
    for (const tracker of this.trackers.values()) tracker.live = false;
    this.trackers.clear();
    this.pauses.keepOnly(() => false);
  }

  /**
   * Learns the group's name once. The gauges of records finished before it was known are
   * labelled now (they are not written without a group: a series labelled '' would stay behind).
   */
  private named(groupId: string | undefined): void {
    if (this.groupId !== undefined || !groupId) return;
    this.groupId = groupId;
    for (const tracker of this.trackers.values()) this.lag.uncommitted(tracker);
  }

  private onJoin(groupId: string, assigned: Readonly<Record<string, readonly number[]>>): void {
    this.named(groupId);
    this.groupId = groupId;
    const assignment = new Map<string, Set<number>>();
    for (const [topic, partitions] of Object.entries(assigned)) {
      assignment.set(topic, new Set(partitions));
    }
    const isAssigned = (topic: string, partition: number) =>
      assignment.get(topic)?.has(partition) === true;
    for (const [k, tracker] of this.trackers) {
      if (!isAssigned(tracker.topic, tracker.partition)) {
        tracker.live = false; // revoked: late results of its records are never committed
        this.trackers.delete(k);
      }
    }
    this.pauses.keepOnly(isAssigned);
    this.assignment = assignment;
    this.rebalancing = false;
    this.status = 'running';
    this.committer.schedule();
  }
}
