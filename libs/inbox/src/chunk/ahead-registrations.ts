import type { DecodeResult, DecodeRules } from '../envelope/envelope.decoder';

/** What registration ahead computed for one parsed record (by decode rules). @internal */
export interface DecodedAhead {
  readonly headers: Record<string, string>;
  /** The decode result under `rules` (the topic's usual single handler, without a Map). */
  readonly rules: DecodeRules;
  readonly result: DecodeResult;
  /** Results under other rules (several inbox handlers on one topic). */
  others?: Map<DecodeRules, DecodeResult>;
}

/** A record's inbox row registered ahead by the chunk's one INSERT. */
interface AheadRegistration {
  readonly eventId: string;
  /** True when the row was new (the handler must run), false for a duplicate. */
  readonly fresh: boolean;
  claimed: boolean;
}

/**
 * What the registration ahead of one `InboxKafkaServer` chunk computed: each parsed record's
 * header strings and decode results (the guard reuses that very result), and the inbox row
 * registered for each accepted record, which the handler's attempt claims instead of
 * inserting its row. A fresh registration nobody claimed (its handler never ran) must not
 * commit: see `unclaimed()`.
 * @internal
 */
export class AheadRegistrations {
  private readonly rows = new Map<string, Map<string, AheadRegistration>>();
  /**
   * A Map, not a WeakMap: a young WeakMap full of young keys is an ephemeron table every
   * scavenge must process. Its records are alive until the chunk settles anyway, and
   * `forgetDecoded()` drops them then (an async resource created during the chunk may keep
   * the chunk's batch reachable for longer).
   */
  private readonly decoded = new Map<object, DecodedAhead>();

  /** Keeps a parsed record's header strings and decode result for its guard (same rules). */
  keepDecoded(
    record: object,
    rules: DecodeRules,
    headers: Record<string, string>,
    result: DecodeResult,
  ): void {
    const kept = this.decoded.get(record);
    if (!kept) this.decoded.set(record, { headers, rules, result });
    else if (kept.rules !== rules) (kept.others ??= new Map()).set(rules, result);
  }

  /** Drops what was kept per parsed record (the chunk is settled: nobody reads it again). */
  forgetDecoded(): void {
    this.decoded.clear();
  }

  /** The header strings kept for this parsed record, if any. */
  headersOf(record: object): Record<string, string> | undefined {
    return this.decoded.get(record)?.headers;
  }

  /** The decode result kept for this parsed record under `rules`, if any. */
  resultOf(record: object, rules: DecodeRules): DecodeResult | undefined {
    const kept = this.decoded.get(record);
    if (!kept) return undefined;
    return kept.rules === rules ? kept.result : kept.others?.get(rules);
  }

  /** Records that the row of (consumer, event_id) at `offset` was registered ahead. */
  add(consumer: string, offset: string, eventId: string, fresh: boolean): void {
    let byOffset = this.rows.get(consumer);
    if (!byOffset) this.rows.set(consumer, (byOffset = new Map<string, AheadRegistration>()));
    byOffset.set(offset, { eventId, fresh, claimed: false });
  }

  /**
   * Claims the registration made ahead for this record: true when its row is new (run the
   * handler), false for a duplicate (also when claimed already), undefined when none was
   * made (register it now). Throws when the record decodes to another event id than the
   * one registered (never expected: the chunk is rolled back and replayed).
   */
  claim(consumer: string, offset: string, eventId: string): boolean | undefined {
    const registration = this.rows.get(consumer)?.get(offset);
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
    for (const [consumer, byOffset] of this.rows) {
      for (const [offset, r] of byOffset) {
        if (r.fresh && !r.claimed) return { consumer, offset, eventId: r.eventId };
      }
    }
    return undefined;
  }
}
