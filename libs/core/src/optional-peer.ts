/** True when `error` says that `name` itself (not one of its own imports) is not installed. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * Loads an optional peer dependency (such as `prom-client`) only when a feature needs it.
 * `load` is the caller's own `() => require(name)`, so that the peer is resolved from the
 * calling package (as its `peerDependencies` promise), not from `@nest-outbox/core`.
 * @returns the module, or `undefined` when `name` is not installed
 * @throws whatever loading it throws otherwise (a broken install is not hidden)
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
