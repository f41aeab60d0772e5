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
