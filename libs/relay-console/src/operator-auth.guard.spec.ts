import { UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { ConsoleAccessError } from './console-access.error';
import { OperatorAuthGuard, operatorOf } from './operator-auth.guard';
import { parseConsoleTokens, resolveConsoleAuth } from './relay-console.options';

const ALICE = 'a'.repeat(40);
const BOB = 'b'.repeat(48);

function contextOf(request: object): ExecutionContext {
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}

function tlsRequest(authorized: boolean, cn?: string) {
  return {
    headers: {},
    socket: { authorized, getPeerCertificate: () => ({ subject: cn ? { CN: cn } : {} }) },
  };
}

describe('operator console access control', () => {
  it('refuses to start without tokens, with short tokens or with names it cannot record', () => {
    expect(() => resolveConsoleAuth(undefined)).toThrow(ConsoleAccessError);
    expect(() => resolveConsoleAuth({ bearer: { tokens: {} } })).toThrow(/no access control/);
    expect(() => resolveConsoleAuth({ bearer: { tokens: { alice: 'short' } } })).toThrow(
      /shorter than 32/,
    );
    expect(() => resolveConsoleAuth({ bearer: { tokens: { 'a b': ALICE } } })).toThrow(
      /must be 1-64 letters/,
    );
    expect(() => resolveConsoleAuth({ mtls: { allowedSubjects: [] } })).toThrow(/is empty/);
  });

  it('reads RELAY_CONSOLE_TOKENS as name:token pairs (tokens may hold colons)', () => {
    expect(parseConsoleTokens(`alice:${ALICE}, bob:x:${BOB}`)).toEqual({
      alice: ALICE,
      bob: `x:${BOB}`,
    });
    expect(parseConsoleTokens(undefined)).toEqual({});
    expect(() => parseConsoleTokens('just-a-token')).toThrow(ConsoleAccessError);
  });

  it('lets a request through with any configured token, naming its operator, and refuses others with 401', () => {
    const guard = new OperatorAuthGuard(
      resolveConsoleAuth({ bearer: { tokens: { alice: ALICE, bob: BOB } } }),
    );
    const request = { headers: { authorization: `Bearer ${BOB}` }, socket: {} };
    expect(guard.canActivate(contextOf(request))).toBe(true);
    expect(operatorOf(request)).toBe('bob');
    for (const authorization of [
      undefined,
      `Bearer ${ALICE}x`,
      `bearer ${ALICE}`,
      ALICE,
      'Bearer ',
    ]) {
      const refused = { headers: { authorization }, socket: {} };
      expect(() => guard.canActivate(contextOf(refused))).toThrow(UnauthorizedException);
      expect(operatorOf(refused)).toBe('unknown');
    }
  });

  it('with mTLS, lets through a verified client certificate (its CN as operator) and refuses unverified or unlisted ones', () => {
    const guard = new OperatorAuthGuard(
      resolveConsoleAuth({ mtls: { allowedSubjects: ['ops-alice'] } }),
    );
    const verified = tlsRequest(true, 'ops-alice');
    expect(guard.canActivate(contextOf(verified))).toBe(true);
    expect(operatorOf(verified)).toBe('cn:ops-alice');
    for (const request of [
      tlsRequest(false, 'ops-alice'),
      tlsRequest(true, 'mallory'),
      tlsRequest(true),
    ])
      expect(() => guard.canActivate(contextOf(request))).toThrow(UnauthorizedException);
    const bearerOnMtls = { headers: { authorization: `Bearer ${ALICE}` }, socket: {} };
    expect(() => guard.canActivate(contextOf(bearerOnMtls))).toThrow(UnauthorizedException);
  });
});
