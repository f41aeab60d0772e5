import { IsOptional } from 'class-validator';
import { IsPlainText } from '../../../common/src';

/** The body of `POST /orders/:id/cancel` (optional; the reason defaults to `unspecified`). */
export class CancelOrderDto {
  /** Stored in `cancel_reason` (text) and sent in `order.cancelled`. */
  @IsOptional()
  @IsPlainText({ maxLength: 200 })
  readonly reason?: string;
}
