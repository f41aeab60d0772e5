/**
 * The time window a reconciliation checks: orders created in `[from, to)` and not changed
 * since `to` (an order changed after `to` is judged by a later run).
 */
export interface ReconciliationWindow {
  readonly from: Date;
  readonly to: Date;
}

/**
 * What a reconciliation found. `verdict` is `clean` when every list of ids is empty.
 * - `missingEvents`: confirmed orders without a published `order.confirmed` (I1 broken);
 * - `missingShipments`: confirmed orders the shipping service has no shipment for;
 * - `unexpectedShipments`: shipments of orders that were never confirmed (I2 broken);
 * - `uncancelledShipments`: orders cancelled after confirmation whose shipment is still live.
 */
export interface ReconciliationReport {
  readonly window: { readonly from: string; readonly to: string };
  readonly verdict: 'clean' | 'mismatch';
  readonly orders: number;
  readonly confirmedOrders: number;
  readonly cancelledAfterConfirmation: number;
  readonly confirmedEventsPublished: number;
  readonly shipments: number;
  readonly missingEvents: readonly string[];
  readonly missingShipments: readonly string[];
  readonly unexpectedShipments: readonly string[];
  readonly uncancelledShipments: readonly string[];
}

/** The kinds of mismatch, as the `kind` label of `orders_reconciliation_mismatches`. */
export const MISMATCH_KINDS = [
  'missingEvents',
  'missingShipments',
  'unexpectedShipments',
  'uncancelledShipments',
] as const;
