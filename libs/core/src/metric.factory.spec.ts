import * as promClient from 'prom-client';
import { createModuleMetrics, noopMetricFactory, type PromClient } from './metric.factory';
import { OptionalPeerMissingError } from './optional-peer-missing.error';

const notInstalled = (): PromClient => {
  throw Object.assign(new Error("Cannot find module 'prom-client'"), { code: 'MODULE_NOT_FOUND' });
};
const installed = (): PromClient => promClient;

describe('createModuleMetrics', () => {
  it('with metrics: false, records nothing and never loads prom-client', () => {
    const load = jest.fn(installed);
    const warn = jest.fn();
    const metrics = createModuleMetrics('RelayModule', false, load, warn);
    expect(metrics).toEqual({ make: noopMetricFactory, registry: undefined });
    expect(load).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it('with prom-client installed, creates prefixed metrics in a registry of its own (not the global one)', async () => {
    const { make, registry } = createModuleMetrics(
      'RelayModule',
      { registry: undefined, prefix: 'p_' },
      installed,
      jest.fn(),
    );
    expect(registry).toBeInstanceOf(promClient.Registry);
    expect(registry).not.toBe(promClient.register);
    make.counter('events_total', 'help', ['kind']).inc({ kind: 'x' }, 2);
    expect(await registry!.getSingleMetricAsString('p_events_total')).toContain(
      'p_events_total{kind="x"} 2',
    );
  });

  it('with a registry given, registers there', () => {
    const mine = new promClient.Registry();
    const { make, registry } = createModuleMetrics(
      'InboxModule',
      { registry: mine, prefix: '' },
      installed,
      jest.fn(),
    );
    make.gauge('lag', 'help', ['topic']).set({ topic: 't' }, 3);
    expect(registry).toBe(mine);
    expect(mine.getSingleMetric('lag')).toBeDefined();
  });

  it('without prom-client, falls back to no-op metrics and warns once, naming the module and the fix', () => {
    const warn = jest.fn();
    const { make, registry } = createModuleMetrics(
      'RelayModule',
      { registry: undefined, prefix: 'p_' },
      notInstalled,
      warn,
    );
    expect(registry).toBeUndefined();
    expect(make).toBe(noopMetricFactory);
    expect(() => make.histogram('h', 'help', [1]).startTimer()()).not.toThrow();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(
      /prom-client is not installed: RelayModule records no metrics \(npm i prom-client.*metrics: false/,
    );
  });

  it('without prom-client but with a registry given, fails with OptionalPeerMissingError saying how to fix it', () => {
    const refuse = () =>
      createModuleMetrics(
        'RelayModule',
        { registry: {} as promClient.Registry, prefix: '' },
        notInstalled,
        jest.fn(),
      );
    expect(refuse).toThrow(OptionalPeerMissingError);
    expect(refuse).toThrow(
      'RelayModule: option "metrics.registry" needs the optional peer dependency "prom-client", which is not installed: run "npm i prom-client"',
    );
  });
});
