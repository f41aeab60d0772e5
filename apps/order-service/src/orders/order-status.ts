/** The life of an order: `pending -> confirmed`, `pending | confirmed -> cancelled`. */
export type OrderStatus = 'pending' | 'confirmed' | 'cancelled';

/** States an order may be confirmed from. */
export const CONFIRMABLE: readonly OrderStatus[] = ['pending'];

/** States an order may be cancelled from (a confirmed order's shipment is cancelled too). */
export const CANCELLABLE: readonly OrderStatus[] = ['pending', 'confirmed'];
