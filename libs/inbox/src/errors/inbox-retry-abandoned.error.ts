/**
 * Why a retry stopped before an outcome: the partition was revoked or the consumer stops.
 * The record is left for redelivery (its offset is not committed). @internal
 */
export class InboxRetryAbandoned extends Error {
  override name = 'InboxRetryAbandoned';
}
