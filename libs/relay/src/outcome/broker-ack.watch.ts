import type { PublishRecord, RelayPublisher } from '../publisher/relay-publisher.interface';

/** Failing events remembered at most (the oldest are forgotten first). */
const MAX_TRACKED = 10_000;
/** Partitions remembered at most (the least recently acknowledged are forgotten first). */
const MAX_PLACES = 10_000;

/**
 * Where a failed send failed: the event's partition when the request held no other,
 * `'unplaced'` when it cannot be pinned (the event is not blamed), `'unknown'` when the
 * publisher does not say.
 * @internal
 */
export type SendPlace =
  | { readonly topic: string; readonly partition: number }
  | 'unplaced'
  | 'unknown';

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
 * failures are its own (its partition takes other records) is parked once its attempts are
 * exhausted; while its partition takes nothing, events back off at the cap instead. Evidence
 * is per partition, since during a recovery some partitions take records while others still
 * fail (broker-wide for a publisher that does not pin failures). In memory, per process: a
 * restarted relay errs on the side of retrying.
 * @internal
 */
export class BrokerAckWatch {
  private tick = 0;
  private lastAck = 0;
  /** Partition -> tick of its latest acknowledgement. */
  private readonly placeAcks = new Map<string, number>();
  /** Event id -> tick of its latest failed send. */
  private readonly failures = new Map<string, number>();

  /**
   * A send was acknowledged (`acks[n]` is where `sent[n]` landed): its events are forgotten,
   * their partitions took records now. Hot path: no allocation per event, one write per run.
   */
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

  /**
   * A send of `eventId` to `place` failed. True when that partition (or, for a publisher that
   * does not say, the broker) acknowledged another send since this event's previous failure;
   * a first failure seen by this process answers false.
   */
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
