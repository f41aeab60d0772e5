/** One record to publish. `value` is the payload text exactly as stored. @publicApi */
export interface PublishRecord {
  readonly topic: string;
  readonly key: string;
  readonly value: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Where the broker stored a record. @publicApi */
export interface PublishAck {
  readonly partition: number;
  readonly offset: string;
}

/**
 * The relay's transport port. `publish` resolves with one ack per record, in order, only
 * once the broker acknowledged all of them; it rejects otherwise. When `signal` aborts,
 * the publish must really stop (not merely stop being awaited) and reject.
 * @publicApi
 */
export interface RelayPublisher {
  connect(): Promise<void>;
  publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]>;
  /** True when the broker answers within `timeoutMs`. */
  ping(timeoutMs: number): Promise<boolean>;
  /**
   * Optional: the partition the latest failed publish of `record` is pinned on (when that
   * request held no other partition). With it, an exhausted event parks only when its own
   * partition took other records meanwhile; without it, when the broker took any.
   */
  failedPartition?(record: PublishRecord): number | undefined;
  /** Disconnects; after `graceMs` (when given) whatever is still open is dropped. */
  disconnect(graceMs?: number): Promise<void>;
}
