import { Inject, Injectable } from '@nestjs/common';
import { pressureView } from '@nest-outbox/core/internal';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { RelayLoop } from '../loop/relay.loop';
import { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import { RELAY_OPTIONS, RELAY_PUBLISHER } from '../relay.constants';
import { RelayStatsService } from './relay-stats.service';

/**
 * Terminus indicator of the relay: down when the loop is not running, the broker does not
 * answer, or the oldest event the relay can publish is older than `maxOldestAgeMs` (parked
 * events and those held behind them are an operator's job, counted by the parked gauge and
 * its alert: they never make it down, as they never raise the pressure). Reports pending
 * count, oldest age, parked count, `statsFrom` (the relay whose stats statement gave them: relays
 * of one outbox share one, through the pressure row) and the pressure state (`ok`, `warn`,
 * `critical`, with the forecast) either way; pressure alone never makes it down. The figures
 * are read on this relay's own pool, so it is down when this relay cannot reach the database
 * even while the others can. Imported from `@nest-outbox/relay/health`
 * (the main entry point does not load `@nestjs/terminus`); list it in the providers of the
 * module that imports `RelayModule.forRoot()` and `TerminusModule`.
 * @example
 * ```ts
 * import { RelayHealthIndicator } from '@nest-outbox/relay/health';
 *
 * @Module({
 *   imports: [TerminusModule, RelayModule.forRoot({ ... })],
 *   controllers: [HealthController],
 *   providers: [RelayHealthIndicator],
 * })
 * export class AppModule {}
 *
 * // in HealthController:
 * @Get('health') @HealthCheck()
 * check() { return this.health.check([() => this.relay.isHealthy('relay')]); }
 * ```
 * @publicApi
 */
@Injectable()
export class RelayHealthIndicator {
  constructor(
    private readonly healthIndicatorService: HealthIndicatorService,
    private readonly loop: RelayLoop,
    private readonly stats: RelayStatsService,
    private readonly metrics: RelayMetrics,
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
      statsFrom: this.stats.sampledBy?.relayId ?? null,
      pressure: pressureView(this.stats.pressure),
    };
    const problems: string[] = [];
    if (!data.running && !data.paused) problems.push('relay loop not running');
    if (!brokerUp) problems.push('broker unreachable');
    if (!stats) problems.push('database unreachable');
    else if (stats.oldestUnparkedAgeMs > this.options.maxOldestAgeMs) {
      problems.push(
        `oldest publishable event is ${Math.round(stats.oldestUnparkedAgeMs)} ms old (> ${this.options.maxOldestAgeMs})`,
      );
    }
    return problems.length === 0
      ? indicator.up(data)
      : indicator.down({ ...data, message: problems.join('; ') });
  }
}
