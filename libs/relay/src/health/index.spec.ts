import { barrelExports } from '@test/support';

describe('@nest-outbox/relay/health entry point', () => {
  it('exports exactly this list (any change to the public API shows here as a diff)', () => {
    expect(barrelExports('libs/relay/src/health/index.ts')).toMatchInlineSnapshot(`
     [
       "class RelayHealthIndicator",
     ]
    `);
  });
});
