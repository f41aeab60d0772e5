import { Inject, Injectable } from '@nestjs/common';
import { pressureView } from '@nest-outbox/core/internal';
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
  /** The outbox's figures, just refreshed; `null` while the database does not answer. */
  readonly backlog: RelayStats | null;
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

  async read(): Promise<RelayOverview> {
    const backlog = await this.stats.refresh().catch(() => null);
    const table = `${this.options.schema}.${this.options.table}`;
    return { relayId: this.relayId, table, backlog, pressure: pressureView(this.stats.pressure) };
  }
}
