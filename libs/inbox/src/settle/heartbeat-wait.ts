/**
 * Waits `ms` in slices of `sliceMs`, calling `between()` (which throws to stop) after each. @internal
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
