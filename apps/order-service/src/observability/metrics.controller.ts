import { Controller, Get, Header, Inject, Optional } from '@nestjs/common';
import { OUTBOX_METRICS_REGISTRY } from '@nest-outbox/outbox';
import { RELAY_METRICS_REGISTRY } from '@nest-outbox/relay';
import type { Registry } from 'prom-client';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from '../../../common/src';
import { OrderMetrics } from './order.metrics';

/** `GET /metrics`: the service's, the outbox's and the embedded relay's metrics (Prometheus text). */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: OrderMetrics,
    @Optional() @Inject(RELAY_METRICS_REGISTRY) private readonly relay?: Registry,
    @Optional() @Inject(OUTBOX_METRICS_REGISTRY) private readonly outbox?: Registry,
  ) {}

  @Get()
  @Header('content-type', PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return prometheusText([this.metrics.registry, this.outbox, this.relay]);
  }
}
