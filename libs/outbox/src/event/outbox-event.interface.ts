/**
 * What a command handler gives `outbox.record()`: the event contract of ARCHITECTURE.md
 * section 3 minus what the library assigns (`eventId`, and defaults).
 * @publicApi
 */
export interface OutboxEventInput<TPayload = unknown> {
  /** For example `order.confirmed`. */
  readonly eventType: string;
  /** For example `order`. */
  readonly aggregateType: string;
  /** The Kafka key: events of one aggregate are published in commit order. */
  readonly aggregateId: string;
  /** The aggregate's version after this change (for example what `transition()` returned). */
  readonly aggregateVersion: number;
  /** Any JSON value; stored and published exactly as `JSON.stringify` renders it. */
  readonly payload: TPayload;
  /**
   * Version of this event type's payload format.
   * @default 1
   */
  readonly schemaVersion?: number;
  /**
   * Extra Kafka headers (string values). `traceparent`, `tracestate` and `correlation_id`
   * may be given here; the other contract headers (`event_id`, `event_type`, ...) may not.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Publish to this topic instead of the relay's route for `aggregateType`. */
  readonly topic?: string;
  /** @default now */
  readonly occurredAt?: Date;
  /** Stored as the `correlation_id` header (wins over one given in `headers`). */
  readonly correlationId?: string;
}

/**
 * The event of `outbox.transitionAndRecord()`: an event without `aggregateVersion`, which
 * is the transition's new version, known only once the statement ran.
 * @publicApi
 */
export type TransitionEventInput<TPayload = unknown> = Omit<
  OutboxEventInput<TPayload>,
  'aggregateVersion'
>;

/**
 * An event as recorded (the row is written at the end of the outermost decorated call, in
 * the same transaction). `eventId` is final: retries of the relay never change it.
 * @publicApi
 */
export interface RecordedEvent {
  readonly eventId: string;
  readonly eventType: string;
  readonly schemaVersion: number;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly aggregateVersion: number;
  readonly occurredAt: Date;
  readonly headers: Readonly<Record<string, string>>;
  readonly topic: string | null;
}

/** A recorded event with its serialized payload and lock key, ready to insert. @internal */
export interface OutboxRow extends RecordedEvent {
  readonly payloadJson: string;
  /** Advisory lock key of (table, aggregate type, aggregate id). */
  readonly lockKey: bigint;
}
