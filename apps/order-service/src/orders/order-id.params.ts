import { IsUUID } from 'class-validator';

/** The path parameters of `/orders/:id...`: the order's id, a UUID (the `uuid` column). */
export class OrderIdParams {
  @IsUUID()
  readonly id!: string;
}
