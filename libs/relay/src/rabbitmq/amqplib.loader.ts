/* eslint-disable @typescript-eslint/no-require-imports -- an optional peer, loaded only when chosen */
import { OptionalPeerMissingError } from '@nest-outbox/core';
import { loadOptionalPeer } from '@nest-outbox/core/internal';
import type * as Amqplib from 'amqplib';
import { RELAY_MODULE } from '../relay.constants';

/** The `amqplib` module. */
export type AmqplibModule = typeof Amqplib;

/**
 * Loads `amqplib` for `broker: 'rabbitmq'`.
 * @throws OptionalPeerMissingError naming the install command when it is not installed
 * @internal
 */
export function loadAmqplib(): AmqplibModule {
  const amqp = loadOptionalPeer('amqplib', () => require('amqplib') as AmqplibModule);
  if (!amqp) throw new OptionalPeerMissingError(RELAY_MODULE, 'amqplib@^2', 'broker');
  return amqp;
}
