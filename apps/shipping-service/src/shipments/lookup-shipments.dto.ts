import { ArrayMaxSize, IsArray, IsUUID } from 'class-validator';

/** Most order ids one lookup may name (the reconciliation sends chunks of 1,000). */
export const MAX_LOOKUP = 5000;

/** The body of `POST /shipments/lookup`: the order ids (UUIDs, the `order_id` column). */
export class LookupShipmentsDto {
  @IsArray()
  @ArrayMaxSize(MAX_LOOKUP)
  @IsUUID(undefined, { each: true })
  readonly orderIds!: string[];
}
