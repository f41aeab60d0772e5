import { barrelExports, internalExports } from '@test/support';

describe('@nest-outbox/core public barrel', () => {
  it('exports exactly this list, at most 20 names: what users import (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/core/src/index.ts')).toMatchInlineSnapshot(`
     [
       "const EVENT_HEADERS",
       "interface EventEnvelope",
       "class InvalidOptionsError",
       "type KafkaHeaderSource",
       "interface MigrationOptions",
       "class NestOutboxError",
       "class OptionalPeerMissingError",
       "type PressureLevel",
       "interface PressureOptions",
       "class RenamedOptionError",
       "interface SqlExecutor",
       "type SqlExecutorFactory",
       "function sqlExecutorOf",
       "interface SqlTransactionOptions",
       "function toKafkaHeaders",
       "class TransactionalAdapterKysely",
       "class TransactionalAdapterMikroOrm",
       "class TransactionalAdapterPg",
       "class UnknownDataStackError",
       "function uuidv7",
     ]
    `);
  });

  it('exports nothing tagged @internal (the shared machinery is @nest-outbox/core/internal)', () => {
    expect(internalExports('libs/core/src/index.ts')).toEqual([]);
  });
});
