/** SQLSTATEs of a database that is gone or going: connection exceptions, shutdowns, start-up. */
const UNAVAILABLE_CODES = /^(08...|57P0[1-3])$/;
/** Node socket errors and node-postgres' own messages when the connection broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const BROKEN_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection is not established)/;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

/**
 * True when `error` (or an error it wraps: `cause`, TypeORM's `driverError`, an aggregate's
 * `errors`) says PostgreSQL is unreachable or went away (a restart, a crash, a failover):
 * nothing is wrong with the work that failed, only with the moment.
 * @publicApi
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const e = error as ErrorLike;
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.test(e.code) || SOCKET_CODES.has(e.code)))
    return true;
  if (typeof e.message === 'string' && BROKEN_CONNECTION.test(e.message)) return true;
  const inner = [
    e.driverError,
    e.cause,
    ...(Array.isArray(e.errors) ? (e.errors as unknown[]) : []),
  ];
  return inner.some((i) => i !== error && isDatabaseUnavailable(i, depth + 1));
}
