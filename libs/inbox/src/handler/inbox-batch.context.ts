import { AsyncLocalStorage } from 'node:async_hooks';
import type { DecodeResult, DecodeRules } from '../envelope/envelope.decoder';
import type { ResolvedHandlerPolicy } from '../inbox-options.resolver';
import type { InboxStore } from '../store/inbox.store';

/**
 * An `@InboxHandler` seen on a topic inside a batch: what `InboxKafkaServer` needs to
 * register the inbox rows of its next chunks ahead, in one statement.
 * @internal
 */
export interface ChunkHandler {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  readonly store: InboxStore;
}

/** What registration ahead computed for one parsed record (by decode rules). @internal */
export interface DecodedAhead {
  readonly headers: Record<string, string>;
  readonly results: Map<DecodeRules, DecodeResult>;
}

/** A record's inbox row registered ahead by the chunk's one INSERT. */
interface AheadRegistration {
  readonly eventId: string;
  /** True when the row was new (the handler must run), false for a duplicate. */
  readonly fresh: boolean;
  claimed: boolean;
}

/**
 * A chunk of records of one partition handled in one PostgreSQL transaction by
 * `InboxKafkaServer`. Records register what to do once the chunk commits (count, make the
 * offset committable) or rolls back (release the offset for redelivery); the first handler
 * error aborts the chunk, which is then replayed record by record on the normal path.
 *
 * The inbox rows of the chunk's accepted records may be registered ahead (`addAhead`); the
 * executor then claims each record's registration instead of inserting its row. A fresh
 * registration nobody claimed (its handler never ran) must not commit: see `unclaimed()`.
 * @internal
 */
export class InboxBatch {
  private readonly committed: (() => void)[] = [];
  private readonly rolledBack: (() => void)[] = [];
  private readonly ahead = new Map<string, Map<string, AheadRegistration>>();
  private readonly decoded = new WeakMap<object, DecodedAhead>();
  /** The inbox handlers that ran in this chunk (distinct consumer and policy). */
  readonly handlers: ChunkHandler[] = [];
  aborted: unknown = undefined;
  applied = 0;

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
    for (const fn of committed ? this.committed : this.rolledBack) fn();
  }

  /** Notes a handler that ran here (see `handlers`). */
  noteHandler(handler: ChunkHandler): void {
    const seen = this.handlers.some(
      (h) => h.consumer === handler.consumer && h.policy === handler.policy,
    );
    if (!seen) this.handlers.push(handler);
  }

  /** Keeps a parsed record's header strings and decode result for its guard (same rules). */
  keepDecoded(
    record: object,
    rules: DecodeRules,
    headers: Record<string, string>,
    result: DecodeResult,
  ): void {
    let kept = this.decoded.get(record);
    if (!kept) this.decoded.set(record, (kept = { headers, results: new Map() }));
    kept.results.set(rules, result);
  }

  /** The header strings and decode results kept for this parsed record, if any. */
  decodedAhead(record: object): DecodedAhead | undefined {
    return this.decoded.get(record);
  }

  /** Records that the row of (consumer, event_id) at `offset` was registered ahead. */
  addAhead(consumer: string, offset: string, eventId: string, fresh: boolean): void {
    let byOffset = this.ahead.get(consumer);
    if (!byOffset) this.ahead.set(consumer, (byOffset = new Map<string, AheadRegistration>()));
    byOffset.set(offset, { eventId, fresh, claimed: false });
  }

  /**
   * Claims the registration made ahead for this record: true when its row is new (run the
   * handler), false for a duplicate (also when claimed already), undefined when none was
   * made (register it now). Throws when the record decodes to another event id than the
   * one registered (never expected: the chunk is rolled back and replayed).
   */
  claimAhead(consumer: string, offset: string, eventId: string): boolean | undefined {
    const registration = this.ahead.get(consumer)?.get(offset);
    if (!registration) return undefined;
    if (registration.eventId !== eventId) {
      throw new Error(
        `inbox row registered ahead for event ${registration.eventId} at offset ${offset}, handler saw ${eventId}`,
      );
    }
    const first = !registration.claimed;
    registration.claimed = true;
    return registration.fresh && first;
  }

  /** The first new inbox row registered ahead whose handler never claimed it, if any. */
  unclaimed(): { consumer: string; offset: string; eventId: string } | undefined {
    for (const [consumer, byOffset] of this.ahead) {
      for (const [offset, r] of byOffset) {
        if (r.fresh && !r.claimed) return { consumer, offset, eventId: r.eventId };
      }
    }
    return undefined;
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
