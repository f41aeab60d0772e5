import { Inject, Injectable } from '@nestjs/common';
import { RelayStatsService } from '../health/relay-stats.service';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS } from '../relay.constants';
import type { RelayStats } from '../store/relay-stats';

/**
 * The pressure state as JSON (health details, the console, the pressure row): no `Infinity`;
 * `unknown` when there is no figure, or none fresh.
 * @publicApi
 */
export interface PressureView {
  readonly state: 'ok' | 'warn' | 'critical' | 'unknown';
  /** Why it is not `ok`. */
  readonly reasons?: readonly string[];
  readonly [detail: string]: unknown;
}

/** What an operator tool shows of one relay. @publicApi */
export interface RelayOverview {
  readonly relayId: string;
  /** `<schema>.<table>` of the outbox. */
  readonly table: string;
  /** The outbox's latest figures; `null` before the first or while they are stale. */
  readonly backlog: RelayStats | null;
  /** How old the figures are and whether they are stale (older than two `statsIntervalMs`). */
  readonly figures: { readonly ageSeconds: number | null; readonly stale: boolean };
  /** `unknown` while the figures are stale. */
  readonly pressure: PressureView;
}

/** This relay's identity, backlog and pressure, for operator tools. @publicApi */
@Injectable()
export class RelayOverviewService {
  /** This relay's instance name (the `relayId` option). */
  readonly relayId: string;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    private readonly stats: RelayStatsService,
  ) {
    this.relayId = options.relayId;
  }

  /** From the latest figures: never waits on a statement. */
  read(): Promise<RelayOverview> {
    const { stats, ageSeconds, stale } = this.stats.figures();
    return Promise.resolve({
      relayId: this.relayId,
      table: `${this.options.schema}.${this.options.table}`,
      backlog: stats,
      figures: { ageSeconds, stale },
      pressure: this.stats.pressureNow(),
    });
  }
}
