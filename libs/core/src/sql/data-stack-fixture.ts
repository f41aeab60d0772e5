/**
 * One data stack under the contract suites of `@nest-outbox/outbox/testing` and
 * `@nest-outbox/inbox/testing`: how to wire it into a Nest application and how user code
 * writes through its transaction object.
 * @publicApi
 */
export interface DataStackFixture {
  /** Shown in the suites' titles; also names their schema (letters, digits, `_`). */
  readonly name: string;
  /** The database the stack connects to; the suites check rows on a connection of their own. */
  readonly databaseUrl: string;
  /**
   * The modules of a fresh application: the stack's own module(s) and
   * `ClsModule.forRoot({ global: true, plugins: [new ClsPluginTransactional({ adapter })] })`.
   */
  imports(): unknown[];
  /**
   * Runs `sql` (literals only) through `tx`, the stack's own transaction object as
   * `TransactionHost.tx` holds it, the way the application's code does (Prisma's
   * `$executeRawUnsafe`, Drizzle's `execute`, ...).
   */
  execute(tx: unknown, sql: string): Promise<unknown>;
  /** Closes what `imports()` opened outside Nest's lifecycle, if anything. */
  close?(): Promise<void>;
}
