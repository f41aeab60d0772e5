import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataStackFixture } from '@nest-outbox/core/internal';
import { Pool } from 'pg';

/** The test framework's hooks (jest's and vitest's globals fit). @publicApi */
export interface ContractTestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeoutMs?: number): void;
  beforeAll(fn: () => Promise<void>, timeoutMs?: number): void;
  afterAll(fn: () => Promise<void>, timeoutMs?: number): void;
}

/** A schema of the suite's own on `stack`'s database, and an application wired to it. @internal */
export class ContractApp {
  readonly pool: Pool;
  app!: INestApplicationContext;

  constructor(
    readonly stack: DataStackFixture,
    readonly schema: string,
  ) {
    this.pool = new Pool({ connectionString: stack.databaseUrl, max: 3 });
  }

  async start(ddl: string, modules: DynamicModule[]): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
    await this.pool.query(`CREATE SCHEMA ${this.schema}`);
    await this.pool.query(ddl);
    @Module({ imports: [...(this.stack.imports() as DynamicModule[]), ...modules] })
    class ContractModule {}
    this.app = await NestFactory.createApplicationContext(ContractModule, { logger: false });
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await this.stack.close?.();
    await this.pool.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
    await this.pool.end();
  }

  async rows<T>(sql: string): Promise<T[]> {
    return (await this.pool.query(sql)).rows as T[];
  }

  /** Polls `check` until true; throws after `ms` with `what` (progress, not a budget). */
  async until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** `contract_<name>` for the suite `kind`, a valid lower-case identifier. @internal */
export function contractSchema(kind: string, stack: DataStackFixture): string {
  return `contract_${kind}_${stack.name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 60);
}
