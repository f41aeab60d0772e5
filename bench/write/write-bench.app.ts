import { Inject, Injectable, Module, type DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import { OutboxModule, OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { benchEvent, benchSql, versionOf, type BenchSql } from './write-bench.sql';

const BENCH_SQL = Symbol('write-bench:sql');
type Host = TransactionHost<TransactionalAdapterTypeOrm>;

/** The library variants of bench:write, as a user would write them in a Nest service. */
@Injectable()
export class WriteBenchCommands {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
    @Inject(BENCH_SQL) private readonly sql: BenchSql,
  ) {}

  /** lib_without: the conditional UPDATE alone, under nestjs-cls's @Transactional(). */
  @Transactional()
  async withoutOutbox(id: number, from: string, to: string): Promise<void> {
    await this.update(id, from, to);
  }

  /** lib_with: the same UPDATE, then outbox.record() (flushed at the end, same transaction). */
  @OutboxTransactional()
  async withOutbox(id: number, from: string, to: string): Promise<void> {
    const version = await this.update(id, from, to);
    await this.outbox.record({ ...benchEvent(id, to), aggregateVersion: version });
  }

  /** lib_single: the transition and its event in one statement (transitionAndRecord). */
  @OutboxTransactional()
  async singleStatement(id: number, from: string, to: string): Promise<void> {
    await this.outbox.transitionAndRecord(
      { table: `${this.sql.schema}.orders`, id, from, to },
      benchEvent(id, to),
    );
  }

  private async update(id: number, from: string, to: string): Promise<number> {
    // TypeORM returns `[rows, rowCount]` for an UPDATE.
    const [rows] = await (this.host as Host).tx.query<[{ version: string }[], number]>(
      this.sql.update,
      [id, to, from],
    );
    return versionOf(rows);
  }
}

/** What one library variant's application is built with. */
export interface WriteBenchAppOptions {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly poolMax: number;
  /** application_name of its connections (the bench finds their backends by it). */
  readonly applicationName: string;
  /** Notify channel of the outbox, or false (BENCH_NOTIFY=off, or the *_quiet variants). */
  readonly notifyChannel: string | false;
  readonly notifyCoalesceMs: number | undefined;
}

/** TypeORM + nestjs-cls + OutboxModule, as the outbox README sets them up. */
@Module({})
export class WriteBenchAppModule {
  static register(options: WriteBenchAppOptions): DynamicModule {
    return {
      module: WriteBenchAppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: options.databaseUrl,
          applicationName: options.applicationName,
          extra: { max: options.poolMax },
        }),
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              imports: [TypeOrmModule],
              adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
            }),
          ],
        }),
        OutboxModule.forRoot({
          schema: options.schema,
          tuning: {
            table: 'outbox',
            notifyChannel: options.notifyChannel,
            notifyCoalesceMs: options.notifyCoalesceMs,
          },
        }),
      ],
      providers: [WriteBenchCommands, { provide: BENCH_SQL, useValue: benchSql(options.schema) }],
    };
  }
}
