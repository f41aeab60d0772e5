import type { OptionChecks } from '../option-checks';

/**
 * The NATS connection of the relay's and the inbox's JetStream transport (`broker:
 * 'nats-jetstream'`), handed to `connect()` of `@nats-io/transport-node`.
 * @publicApi
 */
export interface NatsConnectionOptions {
  /** `host:port` or `nats://host:port`, one or several of the cluster. */
  readonly servers: string | readonly string[];
  /** Client name the server shows in its connection list. */
  readonly name?: string;
  readonly user?: string;
  readonly pass?: string;
  readonly token?: string;
  /** TLS settings of `@nats-io/transport-node` (`{}`: TLS with the system's CAs). */
  readonly tls?: Readonly<Record<string, unknown>>;
  /** Any other `ConnectionOptions` of `@nats-io/transport-node`, passed as they are. */
  readonly connection?: Readonly<Record<string, unknown>>;
}

/**
 * `nats` of a module's options, checked, as the `ConnectionOptions` of `@nats-io/transport-node`:
 * reconnecting forever (a publish or a fetch that waits is bounded by its own timeout).
 * @throws InvalidOptionsError naming the setting and the fix
 * @internal
 */
export function natsConnectOptions(
  check: OptionChecks,
  option: string,
  nats: NatsConnectionOptions | undefined,
): Record<string, unknown> {
  if (!nats || typeof nats !== 'object')
    return check.fail(option, `is required: give { servers: ['127.0.0.1:4222'] }`);
  const servers = typeof nats.servers === 'string' ? [nats.servers] : nats.servers;
  if (!Array.isArray(servers) || servers.length === 0 || servers.some((s) => !isServer(s)))
    return check.fail(
      `${option}.servers`,
      `must be a "host:port" or a non-empty array of them, for example ['127.0.0.1:4222']`,
    );
  const { connection, servers: _, ...named } = nats;
  return {
    maxReconnectAttempts: -1,
    ...connection,
    ...named,
    servers: [...(servers as readonly string[])],
  };
}

const isServer = (s: unknown) => typeof s === 'string' && s.trim().length > 0;
