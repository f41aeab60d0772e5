import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { RelayLoop } from '../loop/relay.loop';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PUBLISHER } from '../relay.constants';
import { RelayStatsService } from './relay-stats.service';
import { WalRelay } from '../wal/wal-relay';

/**
 * Terminus indicator of the relay: down when the loop is not running, the broker does not
 * answer, the database could not be read at the last sampling, or the oldest publishable event
 * is older than `tuning.unhealthyAfterMs` by fresh figures (parked events, pressure and stale
 * figures never make it down). Only the broker probe waits (`brokerTimeoutMs`).
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
    private readonly walRelay: WalRelay,
  ) {}

  async isHealthy<const Key extends string = 'relay'>(
    key: Key = 'relay' as Key,
    { brokerTimeoutMs = 2000 }: { brokerTimeoutMs?: number } = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.healthIndicatorService.check(key);
    const brokerUp = await this.publisher.ping(brokerTimeoutMs);
    this.metrics.brokerUp.set(brokerUp ? 1 : 0);
    const figures = this.stats.figures();
    const stats = figures.stats;
    const oldest = this.stats.oldestTransaction();
    // WAL mode: every row stays unpublished in the table; the slot's lag is the backlog.
    const wal = this.options.wal ? this.walRelay.state : undefined;
    const data = {
      running: this.loop.isRunning,
      paused: this.loop.isPaused,
      broker: brokerUp ? 'up' : 'down',
      figures: figures.ageSeconds === null ? 'none' : figures.stale ? 'stale' : 'fresh',
      figuresAgeSeconds: figures.ageSeconds,
      pending: stats?.pending ?? null,
      parked: stats?.parked ?? null,
      oldestAgeMs: stats ? Math.round(stats.oldestAgeMs) : null,
      oldestPublishableAgeMs: stats ? Math.round(stats.oldestUnparkedAgeMs) : null,
      // Relays of one outbox share one stats statement (the pressure row): whose it was.
      statsFrom: figures.sampledBy,
      pressure: this.stats.pressureNow(),
      // The first thing to check when claims slow down and dead tuples climb.
      oldestTransaction: oldest && { ...oldest.value, figureAgeSeconds: oldest.ageSeconds },
      ...(wal && { wal }),
    };
    const problems: string[] = [];
    if (!data.running && !data.paused) problems.push('relay loop not running');
    if (!brokerUp) problems.push('broker unreachable');
    const dbError = this.stats.databaseError;
    if (dbError) problems.push(`database unreachable (${dbError})`);
    if (wal?.lagSeconds && wal.lagSeconds * 1000 > this.options.unhealthyAfterMs)
      problems.push(
        `slot lag is ${Math.round(wal.lagSeconds)} s (> ${this.options.unhealthyAfterMs} ms)`,
      );
    if (!wal && stats && stats.oldestUnparkedAgeMs > this.options.unhealthyAfterMs) {
      problems.push(
        `oldest publishable event is ${Math.round(stats.oldestUnparkedAgeMs)} ms old (> ${this.options.unhealthyAfterMs})`,
      );
    }
    return problems.length === 0
      ? indicator.up(data)
      : indicator.down({ ...data, message: problems.join('; ') });
  }
}
