/** True when `error` says that `name` itself (not one of its own imports) is not installed. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * Loads an optional peer on use; `load` is the caller's `() => require(name)`, so that the peer
 * resolves from the calling package.
 * @returns undefined when `name` is not installed (a broken install still throws)
 * @publicApi
 */
export function loadOptionalPeer<T>(name: string, load: () => T): T | undefined {
  try {
    return load();
  } catch (error) {
    if (isMissing(error, name)) return undefined;
    throw error;
  }
}
