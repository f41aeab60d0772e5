import { InvalidOptionsError } from './nest-outbox.error';
import { qualifiedTable, sqlIdentifier } from './sql-identifier';

describe('sqlIdentifier', () => {
  it('quotes a plain identifier', () => {
    expect(sqlIdentifier('OutboxModule', 'table', 'outbox_events')).toBe('"outbox_events"');
    expect(qualifiedTable('OutboxModule', 'app', 'outbox')).toBe('"app"."outbox"');
  });

  it.each(['', 'Outbox', 'out box', 'x;drop table y', '1abc', 'a"b', 'a'.repeat(64), 42])(
    'refuses %p with an error naming the option and the fix',
    (value) => {
      expect(() => sqlIdentifier('OutboxModule', 'table', value)).toThrow(InvalidOptionsError);
      expect(() => sqlIdentifier('OutboxModule', 'table', value)).toThrow(
        /OutboxModule: option "table" must be a lower-case SQL identifier/,
      );
    },
  );
});
