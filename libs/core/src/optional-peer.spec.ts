import { loadOptionalPeer } from './optional-peer';

const notFound = (what: string) =>
  Object.assign(new Error(`Cannot find module '${what}'\nRequire stack:\n- x.js`), {
    code: 'MODULE_NOT_FOUND',
  });

describe('loadOptionalPeer', () => {
  it('returns the module when it loads', () => {
    const mod = { ok: true };
    expect(loadOptionalPeer('prom-client', () => mod)).toBe(mod);
  });

  it('returns undefined when the peer itself is not installed', () => {
    const load = () => {
      throw notFound('prom-client');
    };
    expect(loadOptionalPeer('prom-client', load)).toBeUndefined();
  });

  it('rethrows when the peer is installed but one of its own dependencies is missing', () => {
    const load = () => {
      throw notFound('tdigest');
    };
    expect(() => loadOptionalPeer('prom-client', load)).toThrow(/tdigest/);
  });

  it('rethrows any other loading error', () => {
    const load = () => {
      throw new SyntaxError('bad');
    };
    expect(() => loadOptionalPeer('prom-client', load)).toThrow(SyntaxError);
  });

  it('loads a real installed package, and gives undefined for one that is not, through the caller-supplied require', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const present = () => require('kafkajs') as { Kafka: unknown };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const missing = () => require('nest-outbox-no-such-peer') as unknown;
    expect(loadOptionalPeer('kafkajs', present)?.Kafka).toBeDefined();
    expect(loadOptionalPeer('nest-outbox-no-such-peer', missing)).toBeUndefined();
  });
});
