/**
 * Test-only hooks into a relay, through subclasses of the classes they hook (the relay's
 * options have no seam): `onStage` at each stage of a batch (to kill the process there, probe
 * locks or slow a stage down), and `onEncoded` rewriting the Produce requests the relay's own
 * encoder builds. `withTestHooks` puts them on a Nest testing module.
 */
import { Logger } from '@nestjs/common';
import type { TestingModuleBuilder } from '@nestjs/testing';
import type { KafkaConfig, ProducerConfig } from 'kafkajs';
import type { ClaimedBatch } from '../src/claim/claimed-batch';
import type { ResolvedRelayOptions } from '../src/options/relay-options.resolver';
import type { LedgerEntries } from '../src/outcome/batch-ledger';
import type { BatchOutcome } from '../src/outcome/batch-outcome';
import { OutcomeRecorder } from '../src/outcome/outcome.recorder';
import { BatchProcessor } from '../src/publish/batch.processor';
import { RecordEncoderChoice } from '../src/publisher/encoding';
import type { ProduceRequestArgs } from '../src/publisher/encoding/produce-request.encoder';
import type { PublisherEncoding } from '../src/publisher/compression';
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
  /** Rewrites every Produce request the relay's own encoder builds. */
  readonly onEncoded?: (request: Buffer) => Buffer;
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

/** A Kafka publisher whose own encoder's requests go through `onEncoded`. */
export function rewritingPublisher(
  kafka: KafkaConfig,
  producer: ProducerConfig | undefined,
  encoding: PublisherEncoding,
  onEncoded: (request: Buffer) => Buffer,
): KafkaPublisher {
  class RewritingEncoder extends RecordEncoderChoice {
    protected override async encode(args: ProduceRequestArgs): Promise<Buffer> {
      return onEncoded(await super.encode(args));
    }
  }
  return new (class extends KafkaPublisher {
    protected override readonly encoder = new RewritingEncoder(
      encoding.recordEncoder,
      new Logger('Test'),
    );
  })(kafka, producer, encoding);
}

function encodedPublisher(o: ResolvedRelayOptions, onEncoded: (request: Buffer) => Buffer) {
  const { recordEncoder, compression } = o;
  return rewritingPublisher(
    o.raw.kafka!,
    o.raw.tuning?.producer,
    { recordEncoder, compression },
    onEncoded,
  );
}

/** The relay's publisher as `RelayModule` builds it (or `onEncoded`'s). */
function publisherOf(o: ResolvedRelayOptions, hooks: TestHooks) {
  if (o.raw.tuning?.publisher) return o.raw.tuning.publisher;
  if (hooks.onEncoded) return encodedPublisher(o, hooks.onEncoded);
  const { recordEncoder, compression } = o;
  return new KafkaPublisher(o.raw.kafka!, o.raw.tuning?.producer, { recordEncoder, compression });
}

/** Puts `hooks` on the relay of a testing module (nothing when there are none). */
export function withTestHooks(
  builder: TestingModuleBuilder,
  hooks: TestHooks = {},
): TestingModuleBuilder {
  const { onStage } = hooks;
  if (!onStage && !hooks.onEncoded) return builder;
  const hooked = onStage && stageClasses(onStage);
  if (hooked) {
    builder.overrideProvider(BatchProcessor).useClass(hooked.HookedProcessor);
    builder.overrideProvider(OutcomeRecorder).useClass(hooked.HookedRecorder);
    builder.overrideProvider(RelayStore).useClass(hooked.HookedStore);
  }
  return builder.overrideProvider(RELAY_PUBLISHER).useFactory({
    factory: (o: ResolvedRelayOptions) => {
      const publisher = publisherOf(o, hooks);
      return hooked ? new hooked.HookedPublisher(publisher) : publisher;
    },
    inject: [RELAY_OPTIONS],
  });
}
