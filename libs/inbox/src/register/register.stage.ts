import type { Logger } from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { logLine } from '@nest-outbox/core/internal';
import type { Admission, ChunkRecord } from '../chunk/chunk';
import { deliveryFields } from '../chunk/delivery-log';
import { InboxVersionGapError } from '../errors/inbox-version-gap.error';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import type { ResolvedHandlerPolicy } from '../options/inbox-options.resolver';
import type { InboxStore, PendingRegistration } from '../store/inbox.store';

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
  route: { readonly consumer: string; readonly policy: ResolvedHandlerPolicy },
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
  { consumer, policy }: { readonly consumer: string; readonly policy: ResolvedHandlerPolicy },
  record: ChunkRecord,
  event: EventEnvelope,
): Promise<'new' | 'stale'> {
  const check = await store.checkVersion(consumer, event);
  if (check.kind === 'stale') return 'stale';
  if (check.kind === 'gap') {
    metrics.versionGaps.inc({ consumer, topic: record.position.topic });
    logger.warn(
      logLine('aggregate version gap', {
        ...deliveryFields({ consumer, position: record.position }, event),
        last: check.last,
        stage: 'version',
      }),
    );
    if (policy.versionCheck === 'hold')
      throw new InboxVersionGapError(event.aggregateId, check.last + 1, event.aggregateVersion);
  }
  return 'new';
}
