import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './env';
import { waitFor } from './poll';

const SLOT = join(
  tmpdir(),
  `nest-outbox-fault-slot-${createHash('sha1').update(REPO_ROOT).digest('hex').slice(0, 8)}`,
);

function holderAlive(): boolean {
  try {
    const pid = Number(readFileSync(join(SLOT, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The fault tests' slot: one fault test file at a time per checkout (each starts JVMs, a
 * private PostgreSQL and child processes), so that they never starve the rest of the suite,
 * which keeps the other Jest worker. A slot whose holder died is taken over.
 */
export async function acquireFaultSlot(timeoutMs = 900_000): Promise<() => void> {
  await waitFor(
    'the fault test slot',
    () => {
      try {
        mkdirSync(SLOT);
      } catch {
        if (holderAlive()) return false;
        rmSync(SLOT, { recursive: true, force: true });
        return false;
      }
      writeFileSync(join(SLOT, 'pid'), String(process.pid));
      return true;
    },
    { timeoutMs, intervalMs: 500 },
  );
  return () => rmSync(SLOT, { recursive: true, force: true });
}
