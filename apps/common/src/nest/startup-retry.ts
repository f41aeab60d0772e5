import { Logger } from '@nestjs/common';
import { Backoff, errorLabel } from '@nest-outbox/core/internal';
import { OutboxDatabaseUnavailableError } from '@nest-outbox/outbox';

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
  const backoff = new Backoff({ baseMs: 500, capMs: 5000 });
  for (;;) {
    try {
      return await run();
    } catch (error) {
      const delay = backoff.next();
      if (!isUnavailable(error) || Date.now() + delay > deadline) throw error;
      logger.warn(`${step} failed (${errorLabel(error)}); retrying in ${delay} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
