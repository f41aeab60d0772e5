import { Logger } from '@nestjs/common';
import { OutboxDatabaseUnavailableError } from '@nest-outbox/outbox';
import { describeErrorWithoutValues } from '../observability/value-free-error';

/**
 * The wait before the next try after `failures` consecutive failures: 0.5 s doubling up to
 * `capMs`, with its upper half random so that services failing together do not retry in step.
 */
export function retryDelayMs(failures: number, capMs: number): number {
  const delay = Math.min(capMs, 500 * 2 ** Math.min(failures - 1, 30));
  return Math.round(delay / 2 + (Math.random() * delay) / 2);
}

/** Errors of a dependency that is not there yet (PostgreSQL or Kafka starting or restarting). */
function isUnavailable(error: unknown): boolean {
  if (OutboxDatabaseUnavailableError.isCause(error)) return true;
  const name = (error as { name?: unknown } | null)?.name;
  return (
    typeof name === 'string' &&
    /^KafkaJS(Connection|NumberOfRetriesExceeded|NonRetriable)/.test(name)
  );
}

/**
 * Runs a start-up step, again and again while PostgreSQL or Kafka does not answer (a service
 * started with its database restarting must come up when it is back, not exit), for
 * `STARTUP_RETRY_MS` (default 60 s) at most; any other error, or the deadline, fails at once.
 */
export async function retryStartup<T>(step: string, run: () => Promise<T>): Promise<T> {
  const logger = new Logger('Startup');
  const deadline = Date.now() + Number(process.env.STARTUP_RETRY_MS ?? 60_000);
  for (let failures = 1; ; failures++) {
    try {
      return await run();
    } catch (error) {
      const delay = retryDelayMs(failures, 5000);
      if (!isUnavailable(error) || Date.now() + delay > deadline) throw error;
      logger.warn(`${step} failed (${describeErrorWithoutValues(error)}); retrying in ${delay} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
