import type { ModulesContainer } from '@nestjs/core';
import { ServerKafka } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';
import { ReplaySubject } from 'rxjs';
import { fakeKafkaConsumer } from '../../test/inbox-unit.fakes';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { resolveInboxOptions } from '../options/inbox-options.resolver';
import { InboxConsumerRegistry } from './inbox-consumer.registry';

/** A real ServerKafka whose status and consumer the spec sets (it never connects). */
function kafkaServer() {
  const server = new ServerKafka({ client: { brokers: ['127.0.0.1:1'] } });
  let consumer: Consumer | undefined;
  Object.assign(server, { unwrap: () => [null, consumer, null] });
  const status$ = (server as unknown as { _status$: ReplaySubject<string> })._status$;
  return {
    server,
    /** The server's consumer connects (as kafkajs' CONNECT makes ServerKafka report). */
    connects(next: Consumer) {
      consumer = next;
      status$.next('connected');
    },
    disconnects: () => status$.next('disconnected'),
  };
}

describe('InboxConsumerRegistry', () => {
  const registries: InboxConsumerRegistry[] = [];
  afterEach(async () => {
    for (const r of registries.splice(0)) await r.beforeApplicationShutdown();
  });

  function registryOf(targets: ReplaySubject<unknown>) {
    const modules = { getRpcTargetRegistry: () => targets } as unknown as ModulesContainer;
    const options = resolveInboxOptions({ kafka: { brokers: ['127.0.0.1:1'] } });
    const registry = new InboxConsumerRegistry(new InboxMetrics(undefined), modules, options);
    registries.push(registry);
    return registry;
  }

  it("attaches a Kafka server's consumer when it connects (starting until it joins its group), for a server registered before or after the registry", () => {
    const targets = new ReplaySubject<unknown>();
    const early = kafkaServer();
    targets.next(early.server);
    targets.next({ notKafka: true });
    const registry = registryOf(targets);
    const late = kafkaServer();
    targets.next(late.server);
    expect(registry.snapshots()).toHaveLength(0);

    const joining = fakeKafkaConsumer();
    early.connects(joining.consumer);
    late.connects(fakeKafkaConsumer().consumer);
    expect(registry.snapshots().map((s) => s.status)).toEqual(['starting', 'starting']);

    joining.join({ t: [0] });

    expect(registry.snapshots().map((s) => s.status)).toEqual(['running', 'starting']);
  });

  it('forgets the consumer of a start that failed half-way once the next start connects a new one', () => {
    const targets = new ReplaySubject<unknown>();
    const registry = registryOf(targets);
    const kafka = kafkaServer();
    targets.next(kafka.server);
    const first = fakeKafkaConsumer().consumer;
    kafka.connects(first);
    const firstSession = registry.attach(first);
    kafka.disconnects(); // the start failed: the server is closed before the next try

    kafka.connects(fakeKafkaConsumer().consumer);

    expect(registry.snapshots()).toHaveLength(1);
    expect(registry.attach(first)).not.toBe(firstSession); // it was dropped
  });

  it('keeps one session when the same consumer connects again (a restart kafkajs makes)', () => {
    const targets = new ReplaySubject<unknown>();
    const registry = registryOf(targets);
    const kafka = kafkaServer();
    targets.next(kafka.server);
    const consumer = fakeKafkaConsumer().consumer;
    kafka.connects(consumer);
    const session = registry.attach(consumer);
    kafka.disconnects();

    kafka.connects(consumer);

    expect(registry.snapshots()).toHaveLength(1);
    expect(registry.attach(consumer)).toBe(session);
  });
});
