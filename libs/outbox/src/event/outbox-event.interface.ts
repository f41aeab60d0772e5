/** What a command gives `outbox.record()`: the event contract minus what the library assigns. @publicApi */
export interface OutboxEventInput<TPayload = unknown> {
  readonly eventType: string;
  readonly aggregateType: string;
  /** The Kafka key: events of one aggregate are published in commit order. */
  readonly aggregateId: string;
  /** The aggregate's version after this change (for example what `transition()` returned). */
  readonly aggregateVersion: number;
  /** Any JSON value; stored and published exactly as `JSON.stringify` renders it. */
  readonly payload: TPayload;
  /** Version of this event type's payload format. @default 1 */
  readonly schemaVersion?: number;
  /** Extra headers; of the contract headers only `traceparent`, `tracestate`, `correlation_id`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Publish to this topic instead of the relay's route for `aggregateType`. */
  readonly topic?: string;
  /** @default now */
  readonly occurredAt?: Date;
  /** Stored as the `correlation_id` header (wins over one given in `headers`). */
  readonly correlationId?: string;
}

/** The event of `transitionAndRecord()`: its `aggregateVersion` is the transition's. @publicApi */
export type TransitionEventInput<TPayload = unknown> = Omit<
  OutboxEventInput<TPayload>,
  'aggregateVersion'
>;

/** An event as recorded; `eventId` is final. @publicApi */
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
  readonly lockKey: bigint;
}
