import { OptionChecks } from '@nest-outbox/core/internal';
import { RELAY_MODULE } from '../relay.constants';

/**
 * `wal` of `RelayModuleOptions`, read with `mode: 'wal'`: where the relay reads committed
 * outbox inserts from (a publication and a logical replication slot, `pgoutput`).
 * @publicApi
 */
export interface WalRelayOptions {
  /** Logical replication slot, created at start when absent. @default `nest_outbox_<schema>_<table>` */
  readonly slot?: string;
  /** Publication created by `npx nest-outbox migrate --wal`. @default `nest_outbox_<schema>_<table>` */
  readonly publication?: string;
  /** How often a standby relay tries to take the slot over. @default 2000 */
  readonly acquireIntervalMs?: number;
  /** Period of the heartbeat that keeps the slot moving on an idle database. @default 10000 */
  readonly heartbeatMs?: number;
  /** Period of the poll of released (parked, then retried or skipped) events. @default 1000 */
  readonly releasedPollMs?: number;
}

/** The relay's mode: `polling` claims rows from the table, `wal` reads them from a slot. @publicApi */
export type RelayMode = 'polling' | 'wal';

const check = new OptionChecks(RELAY_MODULE);

/** The default slot and publication name of an outbox table. @internal */
export const defaultPublication = (name: { readonly schema: string; readonly table: string }) =>
  `nest_outbox_${name.schema}_${name.table}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 63);
const NAME = /^[a-z0-9_]{1,63}$/;

/** A slot or publication name: the given one checked, else derived from the table. */
function walName(option: string, given: string | undefined, schema: string, table: string) {
  if (given === undefined) return defaultPublication({ schema, table });
  if (typeof given !== 'string' || !NAME.test(given))
    check.fail(option, 'must be 1-63 characters of [a-z0-9_] (a replication slot name)');
  return given;
}

/** Resolved WAL settings (undefined in polling mode). @internal */
export type ResolvedWalOptions = ReturnType<typeof resolveWalOptions>;

/** Validates `mode` and `wal` and applies defaults. @internal */
export function resolveWalOptions(
  mode: unknown,
  raw: WalRelayOptions | undefined,
  schema: string,
  table: string,
) {
  const chosen = check.oneOf<RelayMode>('mode', mode, ['polling', 'wal'], 'polling');
  if (chosen === 'polling') return undefined;
  return {
    slot: walName('wal.slot', raw?.slot, schema, table),
    publication: walName('wal.publication', raw?.publication, schema, table),
    acquireIntervalMs: check.integer('wal.acquireIntervalMs', raw?.acquireIntervalMs, 2000),
    heartbeatMs: check.integer('wal.heartbeatMs', raw?.heartbeatMs, 10_000),
    releasedPollMs: check.integer('wal.releasedPollMs', raw?.releasedPollMs, 1000),
  };
}
