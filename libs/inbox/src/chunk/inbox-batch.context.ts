import { AsyncLocalStorage } from 'node:async_hooks';
import { AheadRegistrations } from './ahead-registrations';
import type { ResolvedHandlerPolicy } from '../options/inbox-options.resolver';
import type { InboxStore } from '../store/inbox.store';
import type { ParsedRecord } from '../envelope/envelope.decoder';

/** A record of a chunk as its guard will see it (parsed by the server's KafkaParser). @internal */
export interface ChunkRecord {
  readonly offset: string;
  readonly record: ParsedRecord & object;
}

/** An `@InboxHandler` seen on a topic in a chunk: what registering ahead needs. @internal */
export interface ChunkHandler {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  readonly store: InboxStore;
  /** An `@InboxBatchHandler`: the whole chunk may be handed to it in one call. */
  readonly batch: boolean;
}

/**
 * One partition's records handled in one transaction by `InboxKafkaServer`, with what to do
 * on commit and on rollback; the first handler error aborts it. @internal
 */
export class InboxBatch {
  private readonly committed: (() => void)[] = [];
  private readonly rolledBack: (() => void)[] = [];
  /** Per-chunk state of the pipeline's parts (see `keep`). */
  private readonly kept = new Map<object, unknown>();
  readonly ahead = new AheadRegistrations();
  /** The inbox handlers that ran in this chunk (distinct consumer and policy). */
  readonly handlers: ChunkHandler[] = [];
  aborted: unknown = undefined;
  /**
   * Set while `InboxKafkaServer` hands these parsed records to the topic's batch handlers in
   * ONE call (their guard reads them all; the call's own message is the last one).
   */
  chunkCall: readonly ChunkRecord[] | undefined = undefined;

  constructor(readonly transactionHost?: unknown) {}

  /**
   * What the chunk keeps under `key` (offsets to finish, outcomes to count): made by `create`
   * on first use, which registers its own commit and rollback hooks once.
   */
  keep<T>(key: object, create: () => T): T {
    if (this.kept.has(key)) return this.kept.get(key) as T;
    const value = create();
    this.kept.set(key, value);
    return value;
  }

  onCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  onRollback(fn: () => void): void {
    this.rolledBack.push(fn);
  }

  abort(error: unknown): void {
    this.aborted ??= error ?? new Error('inbox batch aborted');
  }

  settle(committed: boolean): void {
    this.ahead.forgetDecoded();
    for (const fn of committed ? this.committed : this.rolledBack) fn();
  }

  noteHandler(handler: ChunkHandler): void {
    const seen = this.handlers.some(
      (h) =>
        h.consumer === handler.consumer && h.policy === handler.policy && h.batch === handler.batch,
    );
    if (!seen) this.handlers.push(handler);
  }
}

const storage = new AsyncLocalStorage<InboxBatch>();

/** Runs `fn` with `batch` as the ambient inbox batch. @internal */
export function runInBatch<T>(batch: InboxBatch, fn: () => Promise<T>): Promise<T> {
  return storage.run(batch, fn);
}

/** The ambient inbox batch, if the record is handled inside one. @internal */
export function currentInboxBatch(): InboxBatch | undefined {
  return storage.getStore();
}
