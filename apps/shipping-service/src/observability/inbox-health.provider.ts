import type { Provider } from '@nestjs/common';
import type { HealthIndicatorFunction } from '@nestjs/terminus';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { SERVICE_HEALTH_CHECKS } from '../../../common/src';

/** `/health` of the shipping service also checks the inbox's Kafka consumer. */
export const inboxHealthCheck: Provider = {
  provide: SERVICE_HEALTH_CHECKS,
  inject: [InboxHealthIndicator],
  useFactory: (inbox: InboxHealthIndicator): HealthIndicatorFunction[] => [
    () => inbox.isHealthy('inbox'),
  ],
};
