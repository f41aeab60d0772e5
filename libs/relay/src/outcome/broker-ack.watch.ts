import type { PublishRecord, RelayPublisher } from '../publisher/relay-publisher.interface';

/** Failing events and partitions remembered at most (the oldest forgotten first). */
const MAX_TRACKED = 10_000;
const MAX_PLACES = 10_000;

/** Where a failed send failed: `'unplaced'` cannot be pinned (not blamed), `'unknown'`: not said. */
type SendPlace = { readonly topic: string; readonly partition: number } | 'unplaced' | 'unknown';

/** Where `publisher` pins the latest failed send of `record`. @internal */
export function sendPlace(
  publisher: Pick<RelayPublisher, 'failedPartition'>,
  record: PublishRecord,
): SendPlace {
  if (!publisher.failedPartition) return 'unknown';
  const partition = publisher.failedPartition(record);
  return partition === undefined ? 'unplaced' : { topic: record.topic, partition };
}

const placeKey = (topic: string, partition: number) => `${partition}\u0000${topic}`;

/**
 * Whether the broker takes other records where one event keeps failing: an event whose
 * failures are its own is parked once its attempts are exhausted; while its partition takes
 * nothing, it backs off at the cap instead. Per partition (during a recovery some take records
 * while others fail), in memory: a restarted relay errs on the side of retrying.
 * @internal
 */
export class BrokerAckWatch {
  private tick = 0;
  private lastAck = 0;
  private readonly placeAcks = new Map<string, number>();
  private readonly failures = new Map<string, number>();

  /** `acks[n]` is where `sent[n]` landed. Hot path: no allocation per event, one write per run. */
  acked(
    sent: readonly {
      readonly row: { readonly eventId: string };
      readonly record: { readonly topic: string };
    }[],
    acks: readonly { readonly partition: number }[],
  ): void {
    const tick = (this.lastAck = ++this.tick);
    const forget = this.failures.size > 0;
    let topic: string | undefined;
    let partition = -1;
    for (let n = 0; n < sent.length; n++) {
      const { row, record } = sent[n]!;
      if (forget) this.failures.delete(row.eventId);
      const at = acks[n]!.partition;
      if (record.topic === topic && at === partition) continue; // same place as the previous event
      topic = record.topic;
      partition = at;
      const key = placeKey(topic, partition);
      this.placeAcks.delete(key);
      this.placeAcks.set(key, tick);
    }
    while (this.placeAcks.size > MAX_PLACES) {
      const oldest = this.placeAcks.keys().next().value;
      if (oldest === undefined) break;
      this.placeAcks.delete(oldest);
    }
  }

  /** A send failed: true when `place` (or the broker) acknowledged another send since this event's previous failure. */
  failed(eventId: string, place: SendPlace = 'unknown'): boolean {
    const previous = this.failures.get(eventId);
    this.failures.delete(eventId);
    this.failures.set(eventId, ++this.tick);
    if (this.failures.size > MAX_TRACKED) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    if (previous === undefined || place === 'unplaced') return false;
    const since =
      place === 'unknown'
        ? this.lastAck
        : (this.placeAcks.get(placeKey(place.topic, place.partition)) ?? 0);
    return since > previous;
  }
}
