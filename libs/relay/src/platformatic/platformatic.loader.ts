/* eslint-disable @typescript-eslint/no-require-imports -- an optional peer, loaded only when chosen */
import { OptionalPeerMissingError } from '@nest-outbox/core';
import { loadOptionalPeer } from '@nest-outbox/core/internal';
import type * as PlatformaticKafka from '@platformatic/kafka';
import { RELAY_MODULE } from '../relay.constants';

/** The `@platformatic/kafka` module (an ES module, required as Node >= 20.19 allows). */
export type PlatformaticKafkaModule = typeof PlatformaticKafka;

/**
 * Loads `@platformatic/kafka` for `client: 'platformatic'`.
 * @throws OptionalPeerMissingError naming the install command when it is not installed
 * @internal
 */
export function loadPlatformaticKafka(): PlatformaticKafkaModule {
  const kafka = loadOptionalPeer(
    '@platformatic/kafka',
    () => require('@platformatic/kafka') as PlatformaticKafkaModule,
  );
  if (!kafka) throw new OptionalPeerMissingError(RELAY_MODULE, '@platformatic/kafka@^1', 'client');
  return kafka;
}
