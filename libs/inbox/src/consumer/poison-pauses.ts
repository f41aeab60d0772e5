import type { InboxMetrics } from '../metrics/inbox.metrics';
import { partitionKey, type PoisonPause } from './consumer-snapshot';
import type { InboxConsumerPort } from './inbox-consumer.port';

/**
 * One consumer's partitions paused by a poison event (`onExhausted: 'pause'`), until an operator
 * resumes them or the group takes them away. @internal
 */
export class PoisonPauses {
  private readonly pauses = new Map<string, PoisonPause>();

  constructor(
    private readonly consumer: InboxConsumerPort,
    private readonly metrics: InboxMetrics,
  ) {}

  /** Pauses a partition at `offset` (it will be redelivered on resume). */
  pause(pause: PoisonPause): void {
    this.consumer.pause(pause.topic, pause.partition);
    this.consumer.seek(pause.topic, pause.partition, pause.offset);
    this.pauses.set(partitionKey(pause.topic, pause.partition), pause);
    this.gauge(pause.topic, pause.partition, 1);
  }

  /** Resumes a partition paused by a poison event; false when it was not paused. */
  resume(topic: string, partition: number): boolean {
    if (!this.pauses.delete(partitionKey(topic, partition))) return false;
    this.gauge(topic, partition, 0);
    this.consumer.resume(topic, partition);
    return true;
  }

  /** Forgets the pauses of partitions no longer assigned (the new owner retries the event). */
  keepOnly(isAssigned: (topic: string, partition: number) => boolean): void {
    for (const [key, pause] of this.pauses) {
      if (isAssigned(pause.topic, pause.partition)) continue;
      this.pauses.delete(key);
      this.gauge(pause.topic, pause.partition, 0);
    }
  }

  list(): PoisonPause[] {
    return [...this.pauses.values()];
  }

  private gauge(topic: string, partition: number, value: 0 | 1): void {
    this.metrics.paused.set({ topic, partition: String(partition) }, value);
  }
}
