import { NestMicroservice, ServerKafka } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';

/** A Kafka microservice of an application: starting (no consumer yet) or started. */
export interface KafkaMicroservice {
  readonly modules: object;
  readonly server: ServerKafka;
  /** Set once it started. */
  readonly consumer?: Consumer;
}

/** What `NestMicroservice` holds at run time (TypeScript keeps both fields out of its API). */
interface MicroserviceInternals {
  readonly container: { getModules(): object };
  readonly serverInstance: unknown;
}

type Watcher = { readonly modules: object; readonly notify: (s: KafkaMicroservice) => void };

// Process-wide, as Nest's prototype is; each application sees only its own microservices,
// matched by its ModulesContainer (the one `NestMicroservice` shares with its application).
const started = new Set<KafkaMicroservice>();
const watchers = new Set<Watcher>();
let installed = false;

function announce(microservice: MicroserviceInternals, phase: 'starting' | 'started'): void {
  const server = microservice.serverInstance;
  if (!(server instanceof ServerKafka)) return;
  const modules = microservice.container.getModules();
  let entry: KafkaMicroservice = { modules, server };
  if (phase === 'started') {
    const consumer = server.unwrap<[unknown, Consumer | null]>()[1];
    if (!consumer) return;
    entry = { modules, server, consumer };
    started.add(entry);
    const forget = consumer.on(consumer.events.DISCONNECT, () => {
      started.delete(entry);
      forget();
    });
  }
  for (const w of watchers) if (w.modules === modules) w.notify(entry);
}

/** Wraps `NestMicroservice.listen()` once per process to announce each Kafka server. */
function install(): void {
  if (installed) return;
  installed = true;
  const prototype = NestMicroservice.prototype as unknown as {
    listen: (this: MicroserviceInternals) => Promise<unknown>;
  };
  const listen = prototype.listen;
  prototype.listen = async function (this: MicroserviceInternals) {
    announce(this, 'starting');
    const info = await listen.call(this);
    announce(this, 'started');
    return info;
  };
}

/**
 * Calls `notify` for each Kafka microservice of `modules` as it starts (before its consumer
 * runs) and once it started (with its consumer), and now for those already started; returns
 * the function that stops watching. @internal
 */
export function watchKafkaMicroservices(
  modules: object,
  notify: (microservice: KafkaMicroservice) => void,
): () => void {
  install();
  const watcher = { modules, notify };
  watchers.add(watcher);
  for (const entry of started) if (entry.modules === modules) notify(entry);
  return () => void watchers.delete(watcher);
}
