import { Controller, Get, Header, Inject, Optional } from '@nestjs/common';
import { INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { RELAY_METRICS_REGISTRY } from '@nest-outbox/relay';
import type { Registry } from 'prom-client';

/** `GET /metrics`: the inbox's and the embedded relay's metrics, in Prometheus text format. */
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(INBOX_METRICS_REGISTRY) private readonly inbox: Registry,
    @Optional() @Inject(RELAY_METRICS_REGISTRY) private readonly relay?: Registry,
  ) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    const registries = [this.inbox, ...(this.relay ? [this.relay] : [])];
    const texts = await Promise.all(registries.map((r) => r.metrics()));
    return texts.join('\n');
  }
}
