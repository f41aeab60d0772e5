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
 * What registration ahead computed for one `InboxKafkaServer` chunk: decode results per parsed
 * record (reused by the guard) and the inbox rows the handlers' attempts claim. @internal
 */
export class AheadRegistrations {
  private readonly rows = new Map<string, Map<string, AheadRegistration>>();
  /** A Map, not a WeakMap (an ephemeron table costs every scavenge); cleared on settle. */
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

  forgetDecoded(): void {
    this.decoded.clear();
  }

  headersOf(record: object): Record<string, string> | undefined {
    return this.decoded.get(record)?.headers;
  }

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
   * True: new row, run the handler; false: a duplicate or claimed already; undefined: none
   * made, register now. Throws on another event id (the chunk then rolls back and replays).
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
