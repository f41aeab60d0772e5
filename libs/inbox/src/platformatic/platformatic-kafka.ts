import { OptionalPeerMissingError } from '@nest-outbox/core';
import { loadOptionalPeer } from '@nest-outbox/core/internal';
import type * as Platformatic from '@platformatic/kafka';

/** The `@platformatic/kafka` module. @internal */
export type PlatformaticKafka = typeof Platformatic;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- optional peer, loaded on use
const requirePlatformatic = () => require('@platformatic/kafka') as PlatformaticKafka;

/**
 * Loads `@platformatic/kafka` (an optional peer) when a `PlatformaticInboxServer` starts. It ships
 * ES modules only: Node.js >= 20.19 loads them with `require`. @internal
 */
export function platformaticKafka(): PlatformaticKafka {
  const kafka = loadOptionalPeer('@platformatic/kafka', requirePlatformatic);
  if (!kafka)
    throw new OptionalPeerMissingError(
      'PlatformaticInboxServer',
      '@platformatic/kafka',
      'strategy',
    );
  return kafka;
}
