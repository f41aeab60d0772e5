import { BadRequestException } from '@nestjs/common';

/** One rejected field of a request and what it must be (never the value it had). */
export interface RejectedField {
  /** The field's path (`amountCents`, `orderIds`), `body` or `path` for the whole of it. */
  readonly field: string;
  readonly message: string;
}

/** Field names (unknown keys come from the client) are cut to this length in answers. */
const FIELD_NAME_MAX = 64;

/** A client-sent field name as an answer may carry it: cut past `FIELD_NAME_MAX`. */
export function shownFieldName(name: string): string {
  return name.length <= FIELD_NAME_MAX ? name : `${name.slice(0, FIELD_NAME_MAX)}...`;
}

/**
 * 400 for a request that fails validation. Its body names every rejected field and what it
 * must be, in Nest's shape plus `fields`:
 * `{ statusCode: 400, error: 'Bad Request', message: ['amountCents must not be greater than 2147483647'], fields: ['amountCents'] }`.
 */
export class InvalidRequestException extends BadRequestException {
  constructor(readonly rejected: readonly RejectedField[]) {
    super({
      statusCode: 400,
      error: 'Bad Request',
      message: rejected.map((r) => r.message),
      fields: [...new Set(rejected.map((r) => r.field))],
    });
  }
}
