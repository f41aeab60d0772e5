import { OptionChecks } from '@nest-outbox/core/internal';
import type { BaseOptions, SASLOptions } from '@platformatic/kafka';
import type { KafkaConfig, SASLOptions as KafkajsSasl } from 'kafkajs';
import { RELAY_MODULE } from '../relay.constants';

const check = new OptionChecks(RELAY_MODULE);

/** `kafka` settings both clients understand; `logLevel` only concerns kafkajs' logs. */
const SHARED = new Set([
  'brokers',
  'clientId',
  'ssl',
  'sasl',
  'connectionTimeout',
  'requestTimeout',
  'logLevel',
]);

const MECHANISMS = {
  plain: 'PLAIN',
  'scram-sha-256': 'SCRAM-SHA-256',
  'scram-sha-512': 'SCRAM-SHA-512',
  oauthbearer: 'OAUTHBEARER',
} as const;

const other = (option: string, what: string) =>
  check.fail(
    option,
    `${what} with client 'platformatic': remove it, or use client 'kafkajs' (the default)`,
  );

function saslOf(sasl: KafkajsSasl): SASLOptions | undefined {
  const mechanism = (MECHANISMS as Record<string, SASLOptions['mechanism'] | undefined>)[
    sasl.mechanism
  ];
  if (!mechanism) return other('kafka.sasl.mechanism', `"${sasl.mechanism}" is not offered`);
  if (sasl.mechanism === 'oauthbearer') {
    const provider = sasl.oauthBearerProvider;
    return { mechanism, token: async () => (await provider()).value };
  }
  if (sasl.mechanism === 'aws') return undefined; // unreachable: refused above
  return { mechanism, username: sasl.username, password: sasl.password };
}

/**
 * The `@platformatic/kafka` client options of a kafkajs-shaped `kafka` config: brokers,
 * clientId, ssl (as `tls`), sasl (plain, scram-sha-256/512, oauthbearer)
 * and the connection and request timeouts.
 * @throws InvalidOptionsError naming a setting the platformatic client lacks
 * @internal
 */
export function platformaticClientOptions(kafka: KafkaConfig): BaseOptions {
  for (const key of Object.keys(kafka))
    if (!SHARED.has(key)) other(`kafka.${key}`, 'is a kafkajs setting, not available');
  const brokers = kafka.brokers;
  if (!Array.isArray(brokers) || brokers.length === 0)
    return check.fail(
      'kafka.brokers',
      `must be a non-empty array of "host:port" with client 'platformatic'`,
    );
  const tls = kafka.ssl === true ? {} : kafka.ssl || undefined;
  return {
    clientId: kafka.clientId ?? 'nest-outbox-relay',
    bootstrapBrokers: brokers,
    ...(tls ? { tls } : {}),
    ...(kafka.sasl ? { sasl: saslOf(kafka.sasl as KafkajsSasl) } : {}),
    ...(kafka.connectionTimeout ? { connectTimeout: kafka.connectionTimeout } : {}),
    ...(kafka.requestTimeout ? { requestTimeout: kafka.requestTimeout } : {}),
  };
}
