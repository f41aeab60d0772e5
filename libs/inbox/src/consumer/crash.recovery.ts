import type { Logger } from '@nestjs/common';
import { Backoff, errorLabel } from '@nest-outbox/core/internal';
import type { ConsumerRecovery } from './consumer-snapshot';
import type { CrashPayload, InboxConsumerPort } from './inbox-consumer.port';

/**
 * Says why a consumer crashed and whether its client restarts it (never a payload), and runs it
 * again after a crash its client does not restart: connect, then the given
 * recovery, backing off from 1 s to 30 s until it works or the session closes. @internal
 */
export class CrashRecovery {
  private running = false;
  private closed = false;

  constructor(
    private readonly consumer: InboxConsumerPort,
    private readonly logger: Logger,
    private readonly groupId: () => string,
    private readonly random: () => number = Math.random,
  ) {}

  /** Logs the crash; without its client's own restart, runs the consumer again with `recover`. */
  crashed(payload: CrashPayload, recover: ConsumerRecovery | undefined): void {
    const error = payload.error;
    const what = error ? `${error.name}: ${error.message}` : 'unknown error';
    const next = payload.restart
      ? 'its client restarts it'
      : recover
        ? 'its client does not restart it: the inbox runs it again'
        : 'its client does not restart it: restart the process (health stays down until then)';
    this.logger.error(
      `consumer crashed group=${payload.groupId ?? this.groupId()} stage=consume (${what}); ${next}`,
    );
    if (!payload.restart && recover) this.start(recover);
  }

  /** Starts the recovery loop unless one runs already. */
  start(recover: ConsumerRecovery): void {
    if (this.running || this.closed) return;
    this.running = true;
    void this.loop(recover).finally(() => (this.running = false));
  }

  close(): void {
    this.closed = true;
  }

  private async loop(recover: ConsumerRecovery): Promise<void> {
    const backoff = new Backoff({ baseMs: 1000, capMs: 30_000 }, this.random);
    for (let delay = backoff.next(); !this.closed; delay = backoff.next()) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.closed) return;
      try {
        await this.consumer.connect();
        await recover();
        this.logger.log(`consumer group=${this.groupId()} runs again after its crash`);
        return;
      } catch (error) {
        this.logger.error(
          `consumer group=${this.groupId()} stage=recover failed (${errorLabel(error)}); attempt ${backoff.attempts}, trying again with backoff`,
        );
        await this.consumer.disconnect().catch(() => undefined);
      }
    }
  }
}
