import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';

const LEVELS: LogLevel[] = ['log', 'warn', 'error'];

/**
 * The sample apps' logger: Nest's console logger at log/warn/error, printing one JSON object
 * per line when `NEST_OUTBOX_LOG_FORMAT=json` (the libraries then log objects carrying
 * event_id, aggregate_id, type, attempt and stage), Nest's coloured text otherwise.
 */
export function sampleLogger(): LoggerService | LogLevel[] {
  const json = process.env.NEST_OUTBOX_LOG_FORMAT?.trim().toLowerCase() === 'json';
  return json ? new ConsoleLogger({ json: true, logLevels: LEVELS }) : LEVELS;
}
