import type { ModulesContainer } from '@nestjs/core';
import { ServerKafka } from '@nestjs/microservices';

/**
 * Calls `onServer` for each Kafka server of the application, as Nest registers it when the
 * microservice is created (`ModulesContainer.getRpcTargetRegistry()`, replayed for those
 * already there); returns the function that stops watching. @internal
 */
export function watchKafkaServers(
  modules: ModulesContainer,
  onServer: (server: ServerKafka) => void,
): () => void {
  const subscription = modules.getRpcTargetRegistry<unknown>().subscribe((target) => {
    if (target instanceof ServerKafka) onServer(target);
  });
  return () => subscription.unsubscribe();
}
