import { NestMicroservice, ServerKafka } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';

/** A Kafka microservice that started, and the application (its modules) it belongs to. */
export interface StartedKafkaServer {
  readonly modules: object;
  readonly server: ServerKafka;
  readonly consumer: Consumer;
}

/** What `NestMicroservice` holds at run time (TypeScript keeps both fields out of its API). */
interface MicroserviceInternals {
  readonly container: { getModules(): object };
  readonly serverInstance: unknown;
}

type Watcher = { readonly modules: object; readonly notify: (s: StartedKafkaServer) => void };

// Process-wide, as Nest's prototype is; each application sees only its own microservices,
// matched by its ModulesContainer (the one `NestMicroservice` shares with its application).
const started = new Set<StartedKafkaServer>();
const watchers = new Set<Watcher>();
let installed = false;

function announce(microservice: MicroserviceInternals): void {
  const server = microservice.serverInstance;
  if (!(server instanceof ServerKafka)) return;
  const consumer = server.unwrap<[unknown, Consumer | null]>()[1];
  if (!consumer) return;
  const entry = { modules: microservice.container.getModules(), server, consumer };
  started.add(entry);
  const forget = consumer.on(consumer.events.DISCONNECT, () => {
    started.delete(entry);
    forget();
  });
  for (const w of watchers) if (w.modules === entry.modules) w.notify(entry);
}

/** Wraps `NestMicroservice.listen()` once per process to announce each started Kafka server. */
function install(): void {
  if (installed) return;
  installed = true;
  const prototype = NestMicroservice.prototype as unknown as {
    listen: (this: MicroserviceInternals) => Promise<unknown>;
  };
  const listen = prototype.listen;
  prototype.listen = async function (this: MicroserviceInternals) {
    const info = await listen.call(this);
    announce(this);
    return info;
  };
}

/**
 * Calls `notify` for each running Kafka microservice of `modules`, now and as they start;
 * returns the function that stops watching. @internal
 */
export function watchKafkaMicroservices(
  modules: object,
  notify: (started: StartedKafkaServer) => void,
): () => void {
  install();
  const watcher = { modules, notify };
  watchers.add(watcher);
  for (const entry of started) if (entry.modules === modules) notify(entry);
  return () => void watchers.delete(watcher);
}
