import { NestOutboxError } from '@nest-outbox/core';

/**
 * `mode: 'wal'` cannot start on this database (wal_level, rights, publication or slot); the
 * message says how to fix it. The relay never falls back to polling on its own.
 * @publicApi
 */
export class WalModeUnavailableError extends NestOutboxError {
  constructor(
    readonly problem: string,
    fix: string,
  ) {
    super(`RelayModule mode 'wal': ${problem}. ${fix}, or use mode 'polling'`);
  }
}
