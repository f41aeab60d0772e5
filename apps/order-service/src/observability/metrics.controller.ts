import { Controller, Get, Header, Inject, Optional } from '@nestjs/common';
import { RELAY_METRICS_REGISTRY } from '@nest-outbox/relay';
import type { Registry } from 'prom-client';
import { OrderMetrics } from './order.metrics';

/** `GET /metrics`: the service's metrics and the embedded relay's, in Prometheus text format. */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: OrderMetrics,
    @Optional() @Inject(RELAY_METRICS_REGISTRY) private readonly relay?: Registry,
  ) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    const registries = [this.metrics.registry, ...(this.relay ? [this.relay] : [])];
    const texts = await Promise.all(registries.map((r) => r.metrics()));
    return texts.join('\n');
  }
}
