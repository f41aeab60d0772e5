import { Controller, Get, Header, Inject, Optional } from '@nestjs/common';
import { INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { RELAY_METRICS_REGISTRY } from '@nest-outbox/relay';
import type { Registry } from 'prom-client';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from '../../../common/src';

/** `GET /metrics`: the inbox's and the embedded relay's metrics, in Prometheus text format. */
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(INBOX_METRICS_REGISTRY) private readonly inbox: Registry,
    @Optional() @Inject(RELAY_METRICS_REGISTRY) private readonly relay?: Registry,
  ) {}

  @Get()
  @Header('content-type', PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return prometheusText([this.inbox, this.relay]);
  }
}
