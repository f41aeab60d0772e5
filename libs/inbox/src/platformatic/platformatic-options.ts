import { InvalidOptionsError } from '@nest-outbox/core';
import type { ConsumerOptions } from '@platformatic/kafka';
import type { PlatformaticInboxServerOptions } from './platformatic-inbox.options';

type Options = ConsumerOptions<Buffer, Buffer, Buffer, Buffer>;

/**
 * The `@platformatic/kafka` consumer options of a server configured as `ServerKafka` is: brokers,
 * ssl, sasl (plain, scram), group timings and fetch sizes; anything else in `platformatic`. @internal
 */
export function consumerOptionsOf(
  options: PlatformaticInboxServerOptions,
  ids: { clientId: string; groupId: string; brokers: unknown },
): Options {
  const { client, consumer } = options;
  if (!Array.isArray(ids.brokers))
    throw new InvalidOptionsError('PlatformaticInboxServer', 'client.brokers', 'must be an array');
  const sasl = client?.sasl;
  if (sasl && !['plain', 'scram-sha-256', 'scram-sha-512'].includes(sasl.mechanism))
    throw new InvalidOptionsError(
      'PlatformaticInboxServer',
      'client.sasl',
      `mechanism '${sasl.mechanism}' is not mapped: pass it as platformatic.sasl`,
    );
  const defined = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return {
    ...defined({
      clientId: ids.clientId,
      bootstrapBrokers: ids.brokers as string[],
      groupId: ids.groupId,
      sessionTimeout: consumer?.sessionTimeout,
      rebalanceTimeout: consumer?.rebalanceTimeout,
      heartbeatInterval: consumer?.heartbeatInterval,
      maxWaitTime: consumer?.maxWaitTimeInMs,
      minBytes: consumer?.minBytes,
      maxBytes: consumer?.maxBytes,
      maxBytesPerPartition: consumer?.maxBytesPerPartition,
      tls: client?.ssl === true ? {} : client?.ssl || undefined,
      sasl: sasl && {
        mechanism: sasl.mechanism.toUpperCase(),
        username: (sasl as { username: string }).username,
        password: (sasl as { password: string }).password,
      },
    }),
    autocommit: false,
    ...(options.platformatic as Partial<Options> | undefined),
  } as Options;
}
