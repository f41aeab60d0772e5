import { Logger } from '@nestjs/common';
import {
  createModuleMetrics,
  type ModuleMetrics,
  type PromClient,
  type ResolvedMetricsOptions,
} from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import { INBOX_METRIC_PREFIX } from '../inbox.constants';

/** The inbox's own `require('prom-client')`: the peer is resolved from this package. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
const requirePromClient = (): PromClient => require('prom-client') as PromClient;

/**
 * The inbox's metric factory and registry: prom-client metrics when prom-client is installed
 * (loaded here, never at import), no-ops and one warning when it is not, none with `false`.
 * @throws OptionalPeerMissingError when a registry was given and prom-client is not installed
 * @internal
 */
export function inboxModuleMetrics(
  metrics: ResolvedMetricsOptions<Registry> = { registry: undefined, prefix: INBOX_METRIC_PREFIX },
  load: () => PromClient = requirePromClient,
): ModuleMetrics {
  const logger = new Logger('InboxMetrics');
  return createModuleMetrics('InboxModule', metrics, load, (m) => logger.warn(m));
}
