import { Inject, Injectable, Logger } from '@nestjs/common';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { Admission, ChunkRecord, InboxRoute } from '../chunk/chunk';
import { deliveryOf } from '../chunk/inbox-delivery';
import type { InboxOutcome } from '../chunk/inbox-outcome';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../consumer/partition-offset.tracker';
import { decodeFor } from '../decode/decode.stage';
import { INBOX_TRANSACTION_HOST } from '../inbox.constants';
import { invokeRoute } from '../invoke/invoke.stage';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { admit, type RegisterDeps } from '../register/register.stage';
import { HandlerFailures } from '../settle/handler-failures';
import { RejectedRecordSettler } from '../settle/rejected-record.settler';
import { InboxStore } from '../store/inbox.store';

/**
 * The inbox's one path for records of one partition: decode -> register -> invoke in ONE
 * PostgreSQL transaction, then settle (metrics, logs) and commit (offsets become committable).
 * A record on its own is a chunk of one, retried in transactions of its own until its outcome
 * is final (applied, duplicate, stale, dead-lettered or paused). @internal
 */
@Injectable()
export class InboxPipeline {
  private readonly deps: RegisterDeps;

  constructor(
    @Inject(INBOX_TRANSACTION_HOST) private readonly txHost: TransactionHost,
    @Inject(InboxStore) store: InboxStore,
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
    @Inject(HandlerFailures) private readonly failures: HandlerFailures,
    @Inject(RejectedRecordSettler) private readonly rejected: RejectedRecordSettler,
  ) {
    this.deps = { store, metrics, logger: new Logger('InboxModule') };
  }

  /**
   * Every route over the chunk in one transaction. Throws when any stage fails: the chunk is
   * rolled back, nothing of it settles, and the caller replays it record by record.
   */
  async runChunk(
    session: ConsumerSession,
    routes: readonly InboxRoute[],
    records: readonly ChunkRecord[],
  ): Promise<void> {
    const begun = records.map((r) =>
      session.begin(r.position.topic, r.position.partition, r.offset),
    );
    const settled: (() => void)[] = [];
    try {
      await this.txHost.withTransaction(async () => {
        for (const route of routes) {
          const accepted = [];
          for (const verdict of decodeFor(route.policy, records)) {
            if (!verdict.rejection) accepted.push(verdict);
            else {
              const delivery = deliveryOf(verdict.record, route, session);
              settled.push(await this.rejected.recordInChunk(delivery, verdict.rejection));
            }
          }
          const admissions = await admit(this.deps, route, accepted);
          await invokeRoute(route, admissions, this.metrics);
          settled.push(() => this.count(route, records[0]!, admissions));
        }
      });
    } catch (error) {
      records.forEach((r, i) => begun[i]!.abandon(r.offset));
      throw error;
    }
    for (const fn of settled) fn();
    finishAll(session, begun, records);
  }

  /**
   * One record for one route, retried in transactions of its own until its outcome is final;
   * `paused` leaves its offset uncommitted (the partition waits at it).
   */
  async runRecord(
    session: ConsumerSession,
    route: InboxRoute,
    record: ChunkRecord,
  ): Promise<InboxOutcome | 'rejected'> {
    const [verdict] = decodeFor(route.policy, [record]);
    if (verdict!.rejection) {
      await this.rejected.settle(deliveryOf(record, route, session), verdict!.rejection);
      return 'rejected';
    }
    const event = verdict!.event;
    const { topic, partition } = record.position;
    const tracker = session.begin(topic, partition, record.offset);
    const delivery = deliveryOf(record, route, session, { tracker, envelope: event });
    let final = false;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const [admission] = await this.txHost.withTransaction(async () => {
            const admissions = await admit(this.deps, route, [{ record, event }]);
            await invokeRoute(route, admissions, this.metrics);
            return admissions;
          });
          this.count(route, record, [admission!]);
          final = true;
          return admission!.outcome === 'new' ? 'applied' : admission!.outcome;
        } catch (error) {
          const next = await this.failures.afterFailure(delivery, event, attempt, error);
          if (next === 'retry-uncounted') attempt -= 1;
          else if (next !== 'retry') {
            final = next !== 'paused';
            return next;
          }
        }
      }
    } finally {
      if (final) session.finish(tracker, record.offset);
      else tracker.abandon(record.offset);
    }
  }

  private count(route: InboxRoute, at: ChunkRecord, admissions: readonly Admission[]): void {
    const tally = { applied: 0, duplicate: 0, stale: 0 };
    for (const { outcome } of admissions) tally[outcome === 'new' ? 'applied' : outcome] += 1;
    this.metrics.settledMany(tally, { consumer: route.consumer, topic: at.position.topic });
  }
}

/** The chunk's offsets become committable together, one tracker update per partition epoch. */
function finishAll(
  session: ConsumerSession,
  begun: readonly PartitionOffsetTracker[],
  records: readonly ChunkRecord[],
): void {
  const byTracker = new Map<PartitionOffsetTracker, bigint[]>();
  records.forEach((r, i) => {
    const tracker = begun[i]!;
    const offsets = byTracker.get(tracker);
    if (offsets) offsets.push(r.offset);
    else byTracker.set(tracker, [r.offset]);
  });
  for (const [tracker, offsets] of byTracker) session.finishAll(tracker, offsets);
}
