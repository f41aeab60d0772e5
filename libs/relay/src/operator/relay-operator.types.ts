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

export type EventOutcome<O extends string> = { readonly outcome: O; readonly eventId: string };

/** @publicApi */
export type RetryOutcome = EventOutcome<'retried' | 'not-found' | 'not-parked'>;

/** A running relay holds the event (nothing changed); `hint` says what to do. @publicApi */
export interface LeasedOutcome {
  readonly outcome: 'leased';
  readonly eventId: string;
  readonly relayId: string;
  readonly leaseExpiresAt: Date;
  readonly hint: string;
}

/** @publicApi */
export type SkipOutcome = EventOutcome<'skipped' | 'not-found' | 'not-pending'> | LeasedOutcome;

/** @publicApi */
export type ParkOutcome =
  | EventOutcome<'parked' | 'not-found' | 'not-pending' | 'already-parked'>
  | LeasedOutcome;

/** A deliberate replay: published events of one aggregate (and version range), or of a publication window. @publicApi */
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
