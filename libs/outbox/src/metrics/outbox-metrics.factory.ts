import { Logger } from '@nestjs/common';
import { createModuleMetrics, type PromClient } from '@nest-outbox/core/internal';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';
import { OutboxMetrics } from './outbox.metrics';

/** The outbox's own `require('prom-client')`: the peer is resolved from this package. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
const requirePromClient = (): PromClient => require('prom-client') as PromClient;

/**
 * The outbox's metrics as the options ask: none with `metrics: false`; prom-client metrics
 * when prom-client is installed (loaded here, never at import); no-ops and one warning when
 * it is not; `OptionalPeerMissingError` when a registry was given without it.
 * @internal
 */
export function createOutboxMetrics(
  options: Pick<ResolvedOutboxOptions, 'metrics'>,
  load: () => PromClient = requirePromClient,
): OutboxMetrics {
  const logger = new Logger('OutboxMetrics');
  const { make, registry } = createModuleMetrics('OutboxModule', options.metrics, load, (m) =>
    logger.warn(m),
  );
  return new OutboxMetrics(make, registry);
}
