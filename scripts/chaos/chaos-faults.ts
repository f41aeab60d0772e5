import type { ChaosSystem } from './chaos-system';
import { CHAOS_NAMES } from './chaos-system';
import type { SeededRandom } from './seeded-random';

/** The faults a round draws from. */
export const FAULT_KINDS = [
  'relay-sigkill',
  'relay-kill-after-send',
  'consumer-sigkill',
  'broker',
  'postgres-immediate-restart',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault of a round's plan: what, when (ms after the load starts), and for how long. */
export interface PlannedFault {
  readonly kind: FaultKind;
  readonly atMs: number;
  readonly downMs: number;
}

/** What a round does, drawn from its seeded stream. */
export interface RoundPlan {
  /** Standalone relays racing on the orders outbox (2 or 3). */
  readonly relays: number;
  readonly poison: boolean;
  readonly faults: readonly PlannedFault[];
}

export function planRound(rng: SeededRandom, loadMs: number): RoundPlan {
  const relays = rng.int(2, 3);
  const poison = rng.chance(0.3);
  const faults: PlannedFault[] = [];
  for (let i = rng.int(1, 3); i > 0; i--) {
    faults.push({
      kind: rng.pick(FAULT_KINDS),
      atMs: rng.int(300, Math.max(400, loadMs - 500)),
      downMs: rng.int(300, 4000),
    });
  }
  faults.sort((a, b) => a.atMs - b.atMs);
  return { relays, poison, faults };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Injects one fault, waits `downMs`, brings back what it took down; returns what it did. */
export async function runFault(
  system: ChaosSystem,
  fault: PlannedFault,
  rng: SeededRandom,
): Promise<string> {
  switch (fault.kind) {
    case 'relay-sigkill': {
      const relay = rng.pick(system.relays.slice(0, system.activeRelays));
      await relay.kill();
      await sleep(fault.downMs);
      relay.start();
      return `${relay.name} SIGKILL for ${fault.downMs} ms`;
    }
    case 'relay-kill-after-send': {
      // The seam of scripts/sample-system/fault-relay.entry.ts: SIGKILL right after the next
      // acknowledged batch, before its mark: that batch is published again by someone else.
      const relay = rng.pick(system.relays.slice(0, system.activeRelays));
      relay.expectExit();
      relay.signal('SIGUSR2');
      await sleep(fault.downMs);
      if (!relay.running) relay.start();
      return `${relay.name} armed to die between send and mark`;
    }
    case 'consumer-sigkill':
      await system.shipping.kill();
      await sleep(fault.downMs);
      system.shipping.start();
      return `shipping consumer SIGKILL for ${fault.downMs} ms`;
    case 'broker': {
      const { what, heal } = await system.kafka.fault(rng, CHAOS_NAMES.orderTopic);
      await sleep(fault.downMs);
      await heal();
      return `${what} for ${fault.downMs} ms`;
    }
    case 'postgres-immediate-restart':
      system.pg.crash();
      await sleep(fault.downMs);
      system.pg.start();
      return `PostgreSQL stop -m immediate, down ${fault.downMs} ms`;
  }
}
