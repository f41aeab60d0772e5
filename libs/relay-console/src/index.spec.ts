import { barrelExports, internalExports } from '@test/support';

describe('@nest-outbox/relay-console public barrel', () => {
  it('exports exactly this list (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/relay-console/src/index.ts')).toMatchInlineSnapshot(`
     [
       "class ConsoleAccessError",
       "type ConsolePressure",
       "function parseConsoleTokens",
       "type RelayConsoleAuth",
       "class RelayConsoleModule",
       "interface RelayConsoleOptions",
     ]
    `);
  });

  it('exports nothing tagged @internal', () => {
    expect(internalExports('libs/relay-console/src/index.ts')).toEqual([]);
  });
});
