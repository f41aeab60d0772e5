import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { errorLabel, PeriodicTask } from '@nest-outbox/core';
import { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS } from '../relay.constants';
import type { RelayStats } from '../store/relay-stats';
import { RelayStore } from '../store/relay.store';

/**
 * Refreshes pending count, oldest age and parked count every `statsIntervalMs` into the
 * gauges; health checks read a fresh snapshot.
 * @publicApi
 */
@Injectable()
export class RelayStatsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayStats');
  private readonly task: PeriodicTask<RelayStats>;
  private last: RelayStats | undefined;

  constructor(
    @Inject(RELAY_OPTIONS) options: ResolvedRelayOptions,
    private readonly store: RelayStore,
    private readonly metrics: RelayMetrics,
  ) {
    this.task = new PeriodicTask({
      intervalMs: options.statsIntervalMs,
      run: () => this.query(),
      onError: (error) => this.logger.warn(`stats query failed (${errorLabel(error)})`),
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** Queries the figures now (or joins the query in progress) and updates the gauges. */
  refresh(): Promise<RelayStats> {
    return this.task.runNow();
  }

  private async query(): Promise<RelayStats> {
    this.last = await this.store.stats();
    this.metrics.observeStats(this.last);
    return this.last;
  }

  /** The last snapshot, if any. */
  get latest(): RelayStats | undefined {
    return this.last;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}
