import { BadRequestException } from '@nestjs/common';
import type { RepublishRange } from '@nest-outbox/relay';

/** Printable text without control characters, at most `max` characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const PLAIN = /^[^\u0000-\u001f\u007f]*$/;

type Body = Record<string, unknown> | undefined;

function text(body: Body, field: string, max: number, required: boolean): string | undefined {
  const value = body?.[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw new BadRequestException(`${field} is required: say why`);
    return undefined;
  }
  if (typeof value !== 'string' || value.length > max || !PLAIN.test(value))
    throw new BadRequestException(`${field} must be text of at most ${max} characters`);
  return value.trim() || undefined;
}

/** The reason of an action (recorded in the audit table). @internal */
export function reasonOf(body: Body, required: boolean): string | undefined {
  return text(body, 'reason', 500, required);
}

function integer(body: Body, field: string): number | undefined {
  const value = body?.[field];
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new BadRequestException(`${field} must be an integer >= 0`);
  return n;
}

function date(body: Body, field: string): Date {
  const value = body?.[field];
  const at = typeof value === 'string' ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime()))
    throw new BadRequestException(`${field} must be an ISO 8601 timestamp`);
  return at;
}

/** `aggregateType` (with `aggregateId`, `fromVersion`, `toVersion`), or `publishedFrom` and `publishedTo`. @internal */
export function republishRangeOf(body: Body): RepublishRange {
  if (body?.publishedFrom !== undefined || body?.publishedTo !== undefined)
    return { publishedFrom: date(body, 'publishedFrom'), publishedTo: date(body, 'publishedTo') };
  const aggregateType = text(body, 'aggregateType', 200, false);
  if (!aggregateType)
    throw new BadRequestException(
      'give aggregateType (and optionally aggregateId, fromVersion, toVersion) or publishedFrom and publishedTo',
    );
  return {
    aggregateType,
    aggregateId: text(body, 'aggregateId', 200, false),
    fromVersion: integer(body, 'fromVersion'),
    toVersion: integer(body, 'toVersion'),
  };
}

/** `limit` of a listing: 1 to 1000, default 100. @internal */
export function limitOf(value: unknown): number {
  if (value === undefined || value === '') return 100;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 1000)
    throw new BadRequestException('limit must be an integer from 1 to 1000');
  return n;
}
