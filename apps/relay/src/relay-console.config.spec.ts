import { InvalidOptionsError } from '@nest-outbox/core';
import { relayConsoleFromEnv } from './relay-console.config';

describe('relayConsoleFromEnv', () => {
  const token = 't'.repeat(40);

  it('turns the console on by default, with the tokens of RELAY_CONSOLE_TOKENS', () => {
    expect(relayConsoleFromEnv({ RELAY_CONSOLE_TOKENS: `alice:${token}` })).toEqual({
      enabled: true,
      auth: { bearer: { tokens: { alice: token } } },
    });
  });

  it('leaves the access control undefined without tokens or TLS (the console then refuses to start)', () => {
    expect(relayConsoleFromEnv({})).toEqual({ enabled: true, auth: undefined });
  });

  it('turns the console off with RELAY_CONSOLE=off and refuses any other value', () => {
    expect(relayConsoleFromEnv({ RELAY_CONSOLE: 'off' })).toEqual({ enabled: false });
    expect(() => relayConsoleFromEnv({ RELAY_CONSOLE: 'yes' })).toThrow(InvalidOptionsError);
  });
});
