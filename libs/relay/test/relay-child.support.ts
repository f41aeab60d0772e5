import { waitFor, type TsChild } from '@test/support';

/** Waits until the child has exited (a fault child kills itself). */
export async function waitForExit(child: TsChild, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    'child exit',
    () => child.process.exitCode !== null || child.process.signalCode !== null,
    { timeoutMs },
  ).catch((error: unknown) => {
    throw new Error(
      `${(error as Error).message}\n--- child output ---\n${child.output().slice(-3000)}`,
    );
  });
}

/** The event ids of the batch a fault child died in. */
export function faultIds(child: TsChild): string[] {
  const match = /FAULT \S+ ids=(\S*)/.exec(child.output());
  if (!match) throw new Error(`no FAULT line in child output:\n${child.output().slice(-3000)}`);
  return match[1]!.split(',').filter(Boolean);
}
