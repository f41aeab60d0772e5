import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { RelayLoop } from '../loop/relay.loop';
import { RelayMetrics } from '../metrics/relay.metrics';
import type { RelayStats } from '../store/pg-relay.store';
import { Inject } from '@nestjs/common';
import { RELAY_OPTIONS } from '../relay.constants';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';

/**
 * Refreshes pending count, oldest age and parked count every `statsIntervalMs` into the
 * gauges; health checks read a fresh snapshot.
 * @publicApi
 */
@Injectable()
export class RelayStatsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RelayStats');
  private timer: NodeJS.Timeout | undefined;
  private last: RelayStats | undefined;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    private readonly loop: RelayLoop,
    private readonly metrics: RelayMetrics,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        this.logger.warn(`stats query failed (${String(error)})`),
      );
    }, this.options.statsIntervalMs);
    this.timer.unref();
  }

  /** Queries the figures now and updates the gauges. */
  async refresh(): Promise<RelayStats> {
    this.last = await this.loop.store.stats();
    this.metrics.observeStats(this.last);
    return this.last;
  }

  /** The last snapshot, if any. */
  get latest(): RelayStats | undefined {
    return this.last;
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
