/**
 * Delay before attempt `attempt + 1`: exponential from `initialMs`, capped at `maxMs`, with
 * jitter in [50%, 100%] so consumers retrying together do not stay in step.
 * @internal
 */
export function backoffDelay(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random = Math.random,
): number {
  const exponential = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random() / 2));
}

/**
 * Waits `ms` in slices of at most `sliceMs`, calling `between()` after each slice (the
 * Kafka heartbeat and the "still assigned?" check, which throw to stop waiting).
 * @internal
 */
export async function waitWithHeartbeat(
  ms: number,
  between: () => Promise<void>,
  sliceMs = 1000,
): Promise<void> {
  let left = ms;
  while (left > 0) {
    const slice = Math.min(left, sliceMs);
    await new Promise((resolve) => setTimeout(resolve, slice));
    left -= slice;
    await between();
  }
}
