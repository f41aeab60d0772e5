import { InboxVersionGapError } from '../errors/inbox-version-gap.error';

/** The bounded `reason` label of `nest_outbox_inbox_apply_errors_total`. @internal */
export type ApplyErrorReason = 'handler' | 'permanent' | 'database' | 'version_gap';

/** A PostgreSQL error as node-postgres or TypeORM carries it: a five-character SQLSTATE. */
function isDatabaseError(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; code?: unknown; driverError?: unknown; cause?: unknown };
  if (e.name === 'QueryFailedError' || e.name === 'DatabaseError') return true;
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return true;
  return isDatabaseError(e.driverError, depth + 1) || isDatabaseError(e.cause, depth + 1);
}

/** Why an apply attempt failed, as a bounded label. @internal */
export function applyErrorReason(error: unknown, permanent: boolean): ApplyErrorReason {
  if (error instanceof InboxVersionGapError) return 'version_gap';
  if (permanent) return 'permanent';
  return isDatabaseError(error) ? 'database' : 'handler';
}
