import { Controller, Get, Header, Inject, Optional } from '@nestjs/common';
import { RELAY_METRICS_REGISTRY } from '@nest-outbox/relay';
import type { Registry } from 'prom-client';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from '../../../common/src';
import { OrderMetrics } from './order.metrics';

/** `GET /metrics`: the service's metrics and the embedded relay's, in Prometheus text format. */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: OrderMetrics,
    @Optional() @Inject(RELAY_METRICS_REGISTRY) private readonly relay?: Registry,
  ) {}

  @Get()
  @Header('content-type', PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return prometheusText([this.metrics.registry, this.relay]);
  }
}
