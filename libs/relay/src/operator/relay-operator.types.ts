/** A parked event as operators see it: contract fields and relay mechanics, never the payload. @publicApi */
export interface ParkedEvent {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly aggregateVersion: string;
  readonly topic: string | null;
  readonly createdAt: Date;
  readonly parkedAt: Date;
  readonly parkedReason: string | null;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly errorHistory: unknown[];
  /** Later unpublished events of the same aggregate waiting behind this one. */
  readonly waiting: number;
}

/** Who acts, and why (recorded in the audit table). @publicApi */
export interface OperatorActor {
  readonly actor: string;
  readonly reason?: string;
}

/** @publicApi */
export type RetryOutcome =
  | { readonly outcome: 'retried'; readonly eventId: string }
  | { readonly outcome: 'not-found'; readonly eventId: string }
  | { readonly outcome: 'not-parked'; readonly eventId: string };

/**
 * A running relay holds the event: it is being published and ends, within the lease, as
 * published, backing off or parked. `hint` says what to do (run the action again once the lease
 * ended, or pause that relay first); nothing was changed.
 * @publicApi
 */
export interface LeasedOutcome {
  readonly outcome: 'leased';
  readonly eventId: string;
  /** The relay holding it (its `relayId`). */
  readonly relayId: string;
  readonly leaseExpiresAt: Date;
  readonly hint: string;
}

/** @publicApi */
export type SkipOutcome =
  | { readonly outcome: 'skipped'; readonly eventId: string }
  | { readonly outcome: 'not-found'; readonly eventId: string }
  | { readonly outcome: 'not-pending'; readonly eventId: string }
  | LeasedOutcome;

/** @publicApi */
export type ParkOutcome =
  | { readonly outcome: 'parked'; readonly eventId: string }
  | { readonly outcome: 'not-found'; readonly eventId: string }
  | { readonly outcome: 'not-pending'; readonly eventId: string }
  | { readonly outcome: 'already-parked'; readonly eventId: string }
  | LeasedOutcome;

/**
 * A deliberate replay: published events of one aggregate (type, optionally id and an id
 * range), or of a time window of publication.
 * @publicApi
 */
export type RepublishRange =
  | {
      readonly aggregateType: string;
      readonly aggregateId?: string;
      readonly fromVersion?: number;
      readonly toVersion?: number;
    }
  | { readonly publishedFrom: Date; readonly publishedTo: Date };

/** @publicApi */
export interface RepublishOutcome {
  readonly outcome: 'republishing';
  readonly count: number;
}
