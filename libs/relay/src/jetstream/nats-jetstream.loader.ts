/* eslint-disable @typescript-eslint/no-require-imports -- optional peers, loaded only when chosen */
import { OptionalPeerMissingError } from '@nest-outbox/core';
import { loadOptionalPeer } from '@nest-outbox/core/internal';
import type * as JetStream from '@nats-io/jetstream';
import type * as Core from '@nats-io/nats-core';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { RELAY_MODULE } from '../relay.constants';

/** `@nats-io/transport-node` (its own declarations name nats-core's types through a re-export). */
interface Transport {
  connect(options: ConnectionOptions): Promise<NatsConnection>;
}

/** The NATS modules the JetStream publisher uses. @internal */
export interface NatsJetStreamModules {
  readonly transport: Transport;
  readonly core: typeof Core;
  readonly jetstream: typeof JetStream;
}

/**
 * Loads `@nats-io/transport-node`, `@nats-io/nats-core` and `@nats-io/jetstream` for `broker: 'nats-jetstream'`.
 * @throws OptionalPeerMissingError naming the install command when one is not installed
 * @internal
 */
export function loadNatsJetStream(): NatsJetStreamModules {
  const transport = loadOptionalPeer(
    '@nats-io/transport-node',
    () => require('@nats-io/transport-node') as Transport,
  );
  if (!transport)
    throw new OptionalPeerMissingError(RELAY_MODULE, '@nats-io/transport-node@^3', 'broker');
  const jetstream = loadOptionalPeer(
    '@nats-io/jetstream',
    () => require('@nats-io/jetstream') as typeof JetStream,
  );
  if (!jetstream)
    throw new OptionalPeerMissingError(RELAY_MODULE, '@nats-io/jetstream@^3', 'broker');
  const core = loadOptionalPeer(
    '@nats-io/nats-core',
    () => require('@nats-io/nats-core') as typeof Core,
  );
  if (!core) throw new OptionalPeerMissingError(RELAY_MODULE, '@nats-io/nats-core@^3', 'broker');
  return { transport, core, jetstream };
}
