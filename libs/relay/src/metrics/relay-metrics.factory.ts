import { Logger } from '@nestjs/common';
import { createModuleMetrics, type PromClient } from '@nest-outbox/core/internal';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_MODULE } from '../relay.constants';
import { RelayMetrics } from './relay.metrics';

/** The relay's own `require('prom-client')`: the peer is resolved from this package. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
const requirePromClient = (): PromClient => require('prom-client') as PromClient;

/**
 * The relay's metrics as the options ask: none with `metrics: false`; prom-client metrics
 * when prom-client is installed (loaded here, never at import); no-ops and one warning when
 * it is not; `OptionalPeerMissingError` when a registry was given without it.
 * @internal
 */
export function createRelayMetrics(
  options: Pick<ResolvedRelayOptions, 'metrics'>,
  load: () => PromClient = requirePromClient,
): RelayMetrics {
  const logger = new Logger('RelayMetrics');
  const { make, registry } = createModuleMetrics(RELAY_MODULE, options.metrics, load, (m) =>
    logger.warn(m),
  );
  return new RelayMetrics(make, registry);
}
