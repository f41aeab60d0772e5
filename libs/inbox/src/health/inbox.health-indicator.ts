import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { InboxConsumerRegistry } from '../consumer/inbox-consumer.registry';

/**
 * Terminus indicator of the inbox: up when at least one Kafka consumer runs (it joined its
 * group), none is crashed or stopped, and no partition is paused by a poison event. Down while
 * no consumer started, and while they are joining their group (message `joining its consumer
 * group`, their status `starting`): the HTTP side may serve meanwhile. Import it from
 * `@nest-outbox/inbox/health` (the main entry point does not load terminus) and register it next to
 * `TerminusModule` in your health module (`providers: [InboxHealthIndicator]`).
 * @example
 * check() { return this.health.check([() => this.inbox.isHealthy('inbox')]); }
 * @publicApi
 */
@Injectable()
export class InboxHealthIndicator {
  constructor(
    @Inject(HealthIndicatorService) private readonly healthIndicatorService: HealthIndicatorService,
    @Inject(InboxConsumerRegistry) private readonly registry: InboxConsumerRegistry,
  ) {}

  isHealthy<const Key extends string>(key: Key) {
    const indicator = this.healthIndicatorService.check(key);
    const consumers = this.registry.snapshots();
    if (consumers.length === 0) {
      return indicator.down({
        message:
          'no Kafka consumer started yet (app.startAllMicroservices() with InboxKafkaServer)',
        consumers,
      });
    }
    if (consumers.every((c) => c.status === 'starting'))
      return indicator.down({ message: 'joining its consumer group', consumers });
    const paused = consumers.flatMap((c) => c.paused);
    const broken = consumers.filter((c) => c.status === 'crashed' || c.status === 'stopped');
    if (paused.length > 0 || broken.length > 0) {
      const message =
        paused.length > 0
          ? `${paused.length} partition(s) paused by a poison event`
          : `${broken.length} consumer(s) ${broken.map((c) => c.status).join(', ')}`;
      return indicator.down({ message, consumers });
    }
    return indicator.up({ consumers });
  }
}
