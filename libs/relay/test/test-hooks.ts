/**
 * Test-only hooks into a relay, through subclasses of the classes they hook (the relay's
 * options have no seam): `onStage` at each stage of a batch (to kill the process there, probe
 * locks or slow a stage down). `withTestHooks` puts them on a Nest testing module.
 */
import type { TestingModuleBuilder } from '@nestjs/testing';
import type { ClaimedBatch } from '../src/claim/claimed-batch';
import type { ResolvedRelayOptions } from '../src/options/relay-options.resolver';
import type { LedgerEntries } from '../src/outcome/batch-ledger';
import type { BatchOutcome } from '../src/outcome/batch-outcome';
import { OutcomeRecorder } from '../src/outcome/outcome.recorder';
import { BatchProcessor } from '../src/publish/batch.processor';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import type { PublishRecord } from '../src/publisher/relay-publisher.interface';
import { RELAY_OPTIONS, RELAY_PUBLISHER } from '../src/relay.constants';
import { RelayStore, type AckedRow } from '../src/store/relay.store';
import { RecordingPublisher } from './recording.publisher';

/** Where a batch is: claimed, about to be sent, acknowledged, its mark sent and not answered. */
export type RelayStage = 'after-claim' | 'before-send' | 'after-send' | 'during-mark';

export interface TestHooks {
  /** Called (and awaited) at each stage of every batch, with the event ids concerned. */
  readonly onStage?: (stage: RelayStage, eventIds: readonly string[]) => void | Promise<void>;
}

type OnStage = NonNullable<TestHooks['onStage']>;
const eventIdsOf = (acks: readonly AckedRow[]) =>
  acks.map((a) => (a as unknown as { row: { eventId: string } }).row.eventId);

function stageClasses(onStage: OnStage) {
  class HookedProcessor extends BatchProcessor {
    override async process(batch: ClaimedBatch, shutdown: AbortSignal, stopping?: () => boolean) {
      await onStage(
        'after-claim',
        batch.rows.map((r) => r.eventId),
      );
      return super.process(batch, shutdown, stopping);
    }
  }
  class HookedRecorder extends OutcomeRecorder {
    override async record(batch: ClaimedBatch, entries: LedgerEntries, outcome: BatchOutcome) {
      if (entries.acked.length > 0) await onStage('after-send', eventIdsOf(entries.acked));
      return super.record(batch, entries, outcome);
    }
  }
  class HookedStore extends RelayStore {
    override async mark(leaseToken: string, acks: readonly AckedRow[]) {
      const marking = super.mark(leaseToken, acks); // the statement is sent here
      await onStage('during-mark', eventIdsOf(acks));
      return marking;
    }
  }
  class HookedPublisher extends RecordingPublisher {
    override async publish(records: readonly PublishRecord[], signal: AbortSignal) {
      await onStage(
        'before-send',
        records.map((r) => r.headers.event_id!),
      );
      return super.publish(records, signal);
    }
  }
  return { HookedProcessor, HookedRecorder, HookedStore, HookedPublisher };
}

/** The relay's publisher as `RelayModule` builds it. */
function publisherOf(o: ResolvedRelayOptions) {
  return (
    o.raw.tuning?.publisher ??
    new KafkaPublisher(o.raw.kafka!, o.raw.tuning?.producer, { compression: o.compression })
  );
}

/** Puts `hooks` on the relay of a testing module (nothing when there are none). */
export function withTestHooks(
  builder: TestingModuleBuilder,
  hooks: TestHooks = {},
): TestingModuleBuilder {
  const { onStage } = hooks;
  if (!onStage) return builder;
  const hooked = stageClasses(onStage);
  builder.overrideProvider(BatchProcessor).useClass(hooked.HookedProcessor);
  builder.overrideProvider(OutcomeRecorder).useClass(hooked.HookedRecorder);
  builder.overrideProvider(RelayStore).useClass(hooked.HookedStore);
  return builder.overrideProvider(RELAY_PUBLISHER).useFactory({
    factory: (o: ResolvedRelayOptions) => new hooked.HookedPublisher(publisherOf(o)),
    inject: [RELAY_OPTIONS],
  });
}
