/** How a steady writer writes: `rate` events/s as commands of `eventsPerCommand` events. */
export interface SteadyWrite {
  readonly rate: number;
  readonly eventsPerCommand: number;
  /** Concurrent command loops (each needs a connection of its own to run at once). */
  readonly workers: number;
  readonly aggregates: number;
  /** Epoch ms at which the loops stop taking commands. */
  readonly until: number;
}

/** One command: `events` events of aggregate `aggregate`; resolves with their ids after commit. */
export type SteadyCommand = (aggregate: number, events: number) => Promise<string[]>;

/**
 * Runs `command` at `rate` events/s from `workers` loops that share one token bucket (one
 * second of burst): a loop takes the next token, waits for its time, runs one command. When
 * every loop is busy (a slow database or machine) the unused tokens beyond that second are
 * dropped: the writer falls short of the rate, which `achieved` measures, instead of queueing
 * without bound. Resolves with each event's commit time (epoch ms) by event id.
 */
export async function writeSteadily(
  command: SteadyCommand,
  { rate, eventsPerCommand, workers, aggregates, until }: SteadyWrite,
): Promise<Map<string, number>> {
  const committedAt = new Map<string, number>();
  const interval = (1000 * eventsPerCommand) / rate;
  let next = Date.now();
  let aggregate = 0;
  const loop = async () => {
    for (;;) {
      next = Math.max(next, Date.now() - 1000);
      const at = next;
      next += interval;
      if (at >= until) return;
      if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
      const ids = await command(aggregate++ % aggregates, eventsPerCommand);
      const now = Date.now();
      for (const id of ids) committedAt.set(id, now);
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  return committedAt;
}

/** Events committed per second in [from, to) (epoch ms), from `writeSteadily`'s result. */
export function achieved(committedAt: Map<string, number>, from: number, to: number): number {
  let events = 0;
  for (const at of committedAt.values()) if (at >= from && at < to) events++;
  return (events * 1000) / (to - from);
}
