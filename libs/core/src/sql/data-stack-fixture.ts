/** One data stack under the contract suites of the `testing` entry points. @publicApi */
export interface DataStackFixture {
  /** Shown in the suites' titles; also names their schema (letters, digits, `_`). */
  readonly name: string;
  /** The suites check rows on a connection of their own. */
  readonly databaseUrl: string;
  /** The stack's module(s) and `ClsModule.forRoot({ global: true, plugins: [new ClsPluginTransactional({ adapter })] })`. */
  imports(): unknown[];
  /** Runs `sql` (literals only) through `TransactionHost.tx` as the application's code does. */
  execute(tx: unknown, sql: string): Promise<unknown>;
  /** Closes what `imports()` opened outside Nest's lifecycle, if anything. */
  close?(): Promise<void>;
}
