/**
 * An error for a log line: its class and, when it has one, its code (`error Error`,
 * `DatabaseError 23505`, `KafkaJSConnectionError`), never its message: database and
 * validator messages echo the values they refused, which may be payload or personal data.
 * @publicApi
 */
export function errorLabel(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { name, code } = error as { name?: unknown; code?: unknown };
  const label = typeof name === 'string' && name ? name : (error.constructor?.name ?? 'Error');
  return typeof code === 'string' || typeof code === 'number' ? `${label} ${code}` : label;
}
