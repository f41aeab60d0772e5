import { InvalidOptionsError } from './nest-outbox.error';
import { createSqlMigration, migrationName } from './sql-migration';

describe('migrationName', () => {
  it('names the library, the schema and the table before the timestamp', () => {
    expect(
      migrationName(
        'RelayModule',
        'Relay',
        { schema: 'app', table: 'order_outbox' },
        1767225600003,
      ),
    ).toBe('NestOutboxRelayAppOrderOutbox1767225600003');
  });

  it('gives two schemas of one database two different names', () => {
    const name = (schema: string) =>
      migrationName('M', 'Relay', { schema, table: 'outbox' }, 1767225600003);
    expect(name('orders')).not.toBe(name('shipping'));
  });

  it.each([
    [{ schema: 'Bad', table: 'outbox' }, 1767225600003, /option "schema"/],
    [{ schema: 'app', table: 'x;drop' }, 1767225600003, /option "table"/],
    [
      { schema: 'app', table: 'outbox' },
      17672256,
      /option "timestamp" must be a 13-digit millisecond timestamp/,
    ],
  ])('refuses %p / %p', (names, timestamp, message) => {
    expect(() => migrationName('M', 'Relay', names, timestamp)).toThrow(InvalidOptionsError);
    expect(() => migrationName('M', 'Relay', names, timestamp)).toThrow(message);
  });
});

describe('createSqlMigration', () => {
  it('carries its name on the instance and the class, and runs up and down in order', async () => {
    const Migration = createSqlMigration('NestOutboxRelayAppOutbox1767225600003', {
      up: ['CREATE a', 'CREATE b'],
      down: ['DROP b'],
    });
    expect(Migration.name).toBe('NestOutboxRelayAppOutbox1767225600003');
    const migration = new Migration();
    expect(migration.name).toBe('NestOutboxRelayAppOutbox1767225600003');
    const ran: string[] = [];
    const runner = { query: (sql: string) => Promise.resolve(void ran.push(sql)) };
    await migration.up(runner);
    await migration.down(runner);
    expect(ran).toEqual(['CREATE a', 'CREATE b', 'DROP b']);
  });
});
