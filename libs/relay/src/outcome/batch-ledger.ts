import { describeError } from '../errors/error-classifier';
import { publishFailureReason, type PublishFailureReason } from '../errors/failure-reason';
import type { ErrorKind } from '../errors/error-kind';
import type { PublishAck } from '../publisher/relay-publisher.interface';
import type { ClaimedRow } from '../claim/claimed-batch';
import type { AckedRow, ReleaseUpdate } from '../store/relay.store';
import { decideFailure, type FailureDecision, type FailurePolicyOptions } from './failure.policy';

interface AckedEntry extends AckedRow {
  readonly row: ClaimedRow;
}

/** The head of a run whose publish failed, and what to do with it. @internal */
export interface FailedEntry {
  readonly row: ClaimedRow;
  readonly topic: string;
  readonly kind: ErrorKind;
  readonly decision: FailureDecision;
  /** `describeError` of the error (never a payload). */
  readonly error: string;
  readonly reason: PublishFailureReason;
  /** Logged as its class and code only. */
  readonly cause: unknown;
}

export interface LedgerEntries {
  readonly acked: readonly AckedEntry[];
  readonly failed: readonly FailedEntry[];
  readonly released: readonly ReleaseUpdate[];
}

/** What became of a batch's rows while it was sent: acknowledged, failed (a run's head) or handed back. @internal */
export class BatchLedger {
  private acked: AckedEntry[] = [];
  private failed: FailedEntry[] = [];
  private released: ReleaseUpdate[] = [];

  constructor(private readonly policy: FailurePolicyOptions) {}

  ack(rows: readonly ClaimedRow[], acks: readonly PublishAck[]): void {
    rows.forEach((row, i) => this.acked.push({ id: row.id, ...acks[i]!, row }));
  }

  /** `started`: whether their claim was counted (by default every row but suspects). */
  release(rows: readonly ClaimedRow[], started?: boolean): void {
    for (const row of rows) this.released.push({ id: row.id, started: started ?? !row.suspect });
  }

  /**
   * The head of `run` carries the failure; the rest of the run goes back unpublished.
   * @param brokerAcksOthers see `decideFailure` (an exhausted head parks only when true)
   */
  fail(
    run: readonly ClaimedRow[],
    topic: string,
    error: unknown,
    kind: ErrorKind,
    brokerAcksOthers = true,
  ): void {
    const [head, ...rest] = run;
    if (!head) return;
    const decision = decideFailure(head.attempts, kind, this.policy, undefined, brokerAcksOthers);
    const reason = publishFailureReason(error);
    this.failed.push({
      row: head,
      topic,
      kind,
      decision,
      error: describeError(error),
      reason,
      cause: error,
    });
    this.release(rest);
  }

  /** Everything entered so far; the ledger starts empty again. */
  take(): LedgerEntries {
    const entries = { acked: this.acked, failed: this.failed, released: this.released };
    this.acked = [];
    this.failed = [];
    this.released = [];
    return entries;
  }
}
