import { Inject, Injectable } from '@nestjs/common';
import { pressureView } from '@nest-outbox/core/internal';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { RelayLoop } from '../loop/relay.loop';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PUBLISHER } from '../relay.constants';
import { RelayStatsService } from './relay-stats.service';

/**
 * Terminus indicator of the relay: down when the loop is not running, the broker does not
 * answer, the database cannot be reached on this relay's pool, or the oldest event the relay
 * can publish is older than `tuning.unhealthyAfterMs`. Parked events and pressure never make it
 * down. Reports the backlog figures, `statsFrom` and the pressure state either way. Imported
 * from `@nest-outbox/relay/health` (the main entry point does not load `@nestjs/terminus`).
 * @publicApi
 */
@Injectable()
export class RelayHealthIndicator {
  constructor(
    private readonly healthIndicatorService: HealthIndicatorService,
    private readonly loop: RelayLoop,
    private readonly stats: RelayStatsService,
    @Inject(RELAY_METRICS) private readonly metrics: RelayMetrics,
    @Inject(RELAY_PUBLISHER) private readonly publisher: RelayPublisher,
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
  ) {}

  async isHealthy<const Key extends string = 'relay'>(
    key: Key = 'relay' as Key,
    { brokerTimeoutMs = 2000 }: { brokerTimeoutMs?: number } = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.healthIndicatorService.check(key);
    const [stats, brokerUp] = await Promise.all([
      this.stats.refresh().catch(() => undefined),
      this.publisher.ping(brokerTimeoutMs),
    ]);
    this.metrics.brokerUp.set(brokerUp ? 1 : 0);
    const data = {
      running: this.loop.isRunning,
      paused: this.loop.isPaused,
      broker: brokerUp ? 'up' : 'down',
      pending: stats?.pending ?? null,
      parked: stats?.parked ?? null,
      oldestAgeMs: stats ? Math.round(stats.oldestAgeMs) : null,
      oldestPublishableAgeMs: stats ? Math.round(stats.oldestUnparkedAgeMs) : null,
      // Relays of one outbox share one stats statement (the pressure row): whose it was.
      statsFrom: this.stats.sampledBy ?? null,
      pressure: pressureView(this.stats.pressure),
    };
    const problems: string[] = [];
    if (!data.running && !data.paused) problems.push('relay loop not running');
    if (!brokerUp) problems.push('broker unreachable');
    if (!stats) problems.push('database unreachable');
    else if (stats.oldestUnparkedAgeMs > this.options.unhealthyAfterMs) {
      problems.push(
        `oldest publishable event is ${Math.round(stats.oldestUnparkedAgeMs)} ms old (> ${this.options.unhealthyAfterMs})`,
      );
    }
    return problems.length === 0
      ? indicator.up(data)
      : indicator.down({ ...data, message: problems.join('; ') });
  }
}
