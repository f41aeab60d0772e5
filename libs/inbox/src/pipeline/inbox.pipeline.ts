import { Inject, Injectable, Logger } from '@nestjs/common';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { EventEnvelope } from '@nest-outbox/core';
import { logLine } from '@nest-outbox/core/internal';
import { KafkaContext } from '@nestjs/microservices';
import { InboxRmqContext } from '../chunk/inbox-rmq.context';
import {
  deliveryFields,
  deliveryOf,
  InboxKafkaContext,
  type Admission,
  type ChunkRecord,
  type InboxOutcome,
  type InboxRoute,
  type Verdict,
} from '../chunk/chunk';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../consumer/partition-offset.tracker';
import { decodeEnvelope, type DecodeRules } from '../envelope/envelope.decoder';
import { InboxVersionGapError } from '../errors/inbox-version-gap.error';
import { INBOX_TRANSACTION_HOST } from '../inbox.constants';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { DeadLetterSink } from '../settle/dead-letter.sink';
import { HandlerFailures } from '../settle/handler-failures';
import { InboxStore, type PendingRegistration } from '../store/inbox.store';
import { traceInboxCall } from '../tracing/inbox-trace';

type Route = Pick<InboxRoute, 'consumer' | 'policy'>;

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
    @Inject(DeadLetterSink) private readonly sink: DeadLetterSink,
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
              settled.push(await this.sink.rejectInChunk(delivery, verdict.rejection));
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
    // One tracker update per partition epoch.
    const byTracker = new Map<PartitionOffsetTracker, bigint[]>();
    records.forEach((r, i) =>
      byTracker.set(begun[i]!, [...(byTracker.get(begun[i]!) ?? []), r.offset]),
    );
    for (const [tracker, offsets] of byTracker) session.finishAll(tracker, offsets);
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
      await this.sink.reject(deliveryOf(record, route, session), verdict!.rejection);
      return 'rejected';
    }
    const event = verdict!.event;
    const tracker = session.begin(record.position.topic, record.position.partition, record.offset);
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

/** Stage 1: each record's verdict under a route's rules: its event, or why it is refused. @internal */
export function decodeFor(rules: DecodeRules, records: readonly ChunkRecord[]): Verdict[] {
  return records.map((record) => {
    const result = decodeEnvelope(record.message, rules, record.headers);
    return result.ok
      ? { record, event: result.envelope }
      : { record, rejection: { code: result.code, reason: result.reason } };
  });
}

/** What registering needs besides the records. @internal */
export interface RegisterDeps {
  readonly store: InboxStore;
  readonly metrics: InboxMetrics;
  readonly logger: Logger;
}

/**
 * Stage 2, in the caller's transaction: registers the inbox rows of the accepted records in ONE
 * `INSERT ... ON CONFLICT DO NOTHING`, then checks each new event's aggregate version in offset
 * order. A record repeated inside the chunk is new at its first offset only. A version gap under
 * `versionCheck: 'hold'` throws `InboxVersionGapError` (the transaction rolls back). @internal
 */
export async function admit(
  deps: RegisterDeps,
  route: Route,
  accepted: readonly { readonly record: ChunkRecord; readonly event: EventEnvelope }[],
): Promise<Admission[]> {
  if (accepted.length === 0) return [];
  const firsts = new Map<string, PendingRegistration>();
  for (const { record, event } of accepted)
    if (!firsts.has(event.eventId))
      firsts.set(event.eventId, { event, offset: record.position.offset });
  const { topic, partition } = accepted[0]!.record.position;
  const fresh = await deps.store.registerMany(route.consumer, { topic, partition }, [
    ...firsts.values(),
  ]);
  const admissions: Admission[] = [];
  for (const { record, event } of accepted) {
    const isNew =
      fresh.has(event.eventId) && firsts.get(event.eventId)?.offset === record.position.offset;
    const outcome = !isNew
      ? 'duplicate'
      : route.policy.versionCheck === 'off'
        ? 'new'
        : await checkVersion(deps, route, record, event);
    admissions.push({ record, event, outcome });
  }
  return admissions;
}

async function checkVersion(
  { store, metrics, logger }: RegisterDeps,
  { consumer, policy }: Route,
  record: ChunkRecord,
  event: EventEnvelope,
): Promise<'new' | 'stale'> {
  const check = await store.checkVersion(consumer, event);
  if (check.kind === 'stale') return 'stale';
  if (check.kind === 'gap') {
    metrics.versionGaps.inc({ consumer, topic: record.position.topic });
    const at = deliveryFields({ consumer, position: record.position }, event);
    logger.warn(logLine('aggregate version gap', { ...at, last: check.last, stage: 'version' }));
    if (policy.versionCheck === 'hold')
      throw new InboxVersionGapError(event.aggregateId, check.last + 1, event.aggregateVersion);
  }
  return 'new';
}

/**
 * Stage 3, in the caller's transaction: calls the route's handler for its new events in offset
 * order, once per event, or once with all of them for an `@InboxBatchHandler` (its `@Ctx()` and
 * `@Payload()` are then the last one's). A handler error is thrown as is.
 */
async function invokeRoute(
  route: InboxRoute,
  admissions: readonly Admission[],
  metrics: InboxMetrics,
): Promise<void> {
  const fresh = admissions.filter((a) => a.outcome === 'new');
  const calls = route.batch && fresh.length > 0 ? [fresh] : fresh.map((a) => [a]);
  for (const admitted of calls) {
    const { record } = admitted[admitted.length - 1]!;
    const events = admitted.map((a) => a.event);
    const context =
      record.context instanceof KafkaContext
        ? new InboxKafkaContext(record.context, events, route.batch)
        : new InboxRmqContext(record.context, events, route.batch);
    const traced = { consumer: route.consumer, position: record.position };
    const done = metrics.handlerSeconds.startTimer({ consumer: route.consumer });
    try {
      await traceInboxCall(traced, events, route.batch, async () =>
        route.invoke(await record.payload(), context),
      );
    } finally {
      done();
    }
  }
}
