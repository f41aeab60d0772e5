import type { DynamicModule, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { MigrationInterface } from 'typeorm';
import type { SampleServiceConfig } from '../config/sample-service.config';
import { ValueFreeTypeOrmLogger } from './value-free-typeorm.logger';

/** What differs between the services' data sources. */
export interface SampleTypeOrmOptions {
  /** The service's name, as PostgreSQL's `application_name` of its connections. */
  readonly service: string;
  /** The service's entity classes. */
  readonly entities: Type[];
  readonly migrations: (new () => MigrationInterface)[];
  /** Size of the connection pool. */
  readonly poolMax: number;
}

/**
 * The service's TypeORM data source: PostgreSQL, its schema as the default one (the
 * migrations table included), its migrations run at start-up. Its logger never prints SQL
 * parameters nor driver messages (they echo request values): see `ValueFreeTypeOrmLogger`.
 */
export function sampleTypeOrmModule(
  config: SampleServiceConfig,
  options: SampleTypeOrmOptions,
): DynamicModule {
  return TypeOrmModule.forRoot({
    type: 'postgres',
    url: config.databaseUrl,
    schema: config.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsRun: true,
    migrationsTableName: 'migrations',
    // A logger instance receives every event; it decides itself what it prints (no `logging`).
    logger: new ValueFreeTypeOrmLogger(),
    extra: { max: options.poolMax, application_name: options.service },
    // About a minute of tries when PostgreSQL is not there yet (restarting), then fail.
    retryAttempts: 20,
    retryDelay: 3000,
  });
}
