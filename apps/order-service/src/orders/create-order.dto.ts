import { IsInt, Matches, Max, Min } from 'class-validator';
import { IsPlainText, PG_INTEGER_MAX } from '../../../common/src';

/**
 * The body of `POST /orders`. Bounds are the columns' (`orders` table): `amount_cents` is
 * an `integer` with `CHECK (amount_cents > 0)`, the texts are `text` (no NUL, and the event
 * payload is `jsonb`: no unpaired surrogate either). Any other field is refused.
 */
export class CreateOrderDto {
  @IsPlainText({ maxLength: 100 })
  readonly customerId!: string;

  @IsInt()
  @Min(1)
  @Max(PG_INTEGER_MAX)
  readonly amountCents!: number;

  @Matches(/^[A-Z]{3}$/, { message: '$property must be an ISO 4217 code such as EUR' })
  readonly currency!: string;

  @IsPlainText({ maxLength: 500 })
  readonly shippingAddress!: string;
}
