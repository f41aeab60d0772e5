import { IsUUID } from 'class-validator';

/** The path parameters of `GET /shipments/by-order/:orderId` (`order_id` is a `uuid`). */
export class ShipmentByOrderParams {
  @IsUUID()
  readonly orderId!: string;
}
