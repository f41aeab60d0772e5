import type { RelayHooks, RelayStage } from '../options/relay-options.interface';

/**
 * Calls the test-only stage hook, if any. The event ids are computed only then: in
 * production this costs one `undefined` check per stage.
 * @internal
 */
export async function atStage(
  hooks: RelayHooks | undefined,
  stage: RelayStage,
  eventIds: () => readonly string[],
): Promise<void> {
  if (hooks?.onStage) await hooks.onStage(stage, eventIds());
}
