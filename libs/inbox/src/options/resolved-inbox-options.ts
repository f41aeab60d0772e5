import type { ResolvedMetricsOptions } from '@nest-outbox/core/internal';
import type { Registry } from 'prom-client';
import type { InboxTableNames } from '../schema/inbox-schema.sql';
import type {
  ExhaustedPolicy,
  InboxModuleOptions,
  VersionCheckMode,
} from './inbox-options.interface';

/** Quoted, validated table names. @internal */
export interface ResolvedTables {
  readonly schema: string;
  readonly inbox: string;
  readonly rejected: string;
  readonly versions: string;
  /** The names as given, as the DDL functions take them. */
  readonly names: InboxTableNames;
}

/** Everything a handler needs, defaults applied. @internal */
export interface ResolvedHandlerPolicy {
  readonly eventTypes: ReadonlySet<string> | undefined;
  readonly schemaVersions: ReadonlySet<number> | undefined;
  readonly maxMessageBytes: number;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly onExhausted: ExhaustedPolicy;
  readonly deadLetterTopic: string | undefined;
  readonly versionCheck: VersionCheckMode;
}

/** Module options after validation. @internal */
export interface ResolvedInboxOptions {
  readonly raw: InboxModuleOptions;
  readonly tables: ResolvedTables;
  readonly installSchema: boolean;
  readonly verifySchema: boolean;
  /** `false`: no metrics are exported. */
  readonly metrics: ResolvedMetricsOptions<Registry>;
  readonly connectionName: string | undefined;
  readonly defaults: Omit<ResolvedHandlerPolicy, 'eventTypes' | 'schemaVersions'>;
  readonly isPermanentError: (error: unknown) => boolean;
  readonly retention: {
    readonly keepMs: number;
    readonly replayWindowMs: number;
    readonly onTooShort: 'refuse' | 'warn';
    readonly checkTopics: boolean;
    readonly intervalMs: number;
    readonly batchSize: number;
  };
}
