import { IsOptional } from 'class-validator';
import { IsPgTimestamptz } from '../../../common/src';

/**
 * The query of `GET /reconciliation`: `from` and `to` (ISO 8601, each optional), compared
 * with `timestamptz` columns, hence within PostgreSQL's range.
 */
export class ReconciliationQuery {
  @IsOptional()
  @IsPgTimestamptz()
  readonly from?: string;

  @IsOptional()
  @IsPgTimestamptz()
  readonly to?: string;
}
