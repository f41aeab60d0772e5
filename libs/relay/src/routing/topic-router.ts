import { InvalidOptionsError } from '@nest-outbox/core';
import { RELAY_MODULE } from '../relay.constants';

/** A legal Kafka topic name (what the broker accepts); `.` and `..` are not. @internal */
export const isTopicName = (topic: string) =>
  /^[a-zA-Z0-9._-]{1,249}$/.test(topic) && topic !== '.' && topic !== '..';

const PAIR = /^\s*([^=\s,]+)\s*=\s*([^=\s,]+)\s*$/;

function checkTopic(option: string, topic: string): string {
  if (!isTopicName(topic)) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      option,
      `has an invalid Kafka topic name ${JSON.stringify(topic)}: use 1-249 characters from [a-zA-Z0-9._-]`,
    );
  }
  return topic;
}

/**
 * Parses `"order=orders,payment=payments"` (or an object) into a route map.
 * @throws InvalidOptionsError on any other syntax or an invalid topic name
 */
export function parseTopicRoutes(
  routes: Readonly<Record<string, string>> | string | undefined,
): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  if (routes === undefined) return out;
  if (typeof routes === 'string') {
    if (routes.trim() === '') return out;
    for (const part of routes.split(',')) {
      const match = PAIR.exec(part);
      if (!match) {
        throw new InvalidOptionsError(
          RELAY_MODULE,
          'routing.routes',
          `has unknown syntax near ${JSON.stringify(part)}: write "aggregate_type=topic" pairs separated by commas, for example "order=orders,payment=payments"`,
        );
      }
      out.set(match[1]!, checkTopic('routing.routes', match[2]!));
    }
    return out;
  }
  if (typeof routes !== 'object' || routes === null) {
    throw new InvalidOptionsError(
      RELAY_MODULE,
      'routing.routes',
      'must be an object { aggregateType: topic } or a string "aggregate_type=topic,..."',
    );
  }
  for (const [type, topic] of Object.entries(routes)) {
    if (typeof topic !== 'string') {
      throw new InvalidOptionsError(
        RELAY_MODULE,
        `routing.routes.${type}`,
        'must be a topic name string',
      );
    }
    out.set(type, checkTopic(`routing.routes.${type}`, topic));
  }
  return out;
}

/** Picks the topic of an event: its own `topic`, else its aggregate type's route, else the default. */
export class TopicRouter {
  constructor(
    private readonly routes: ReadonlyMap<string, string>,
    private readonly defaultTopic: string | undefined,
  ) {
    if (defaultTopic !== undefined) checkTopic('routing.defaultTopic', defaultTopic);
  }

  /** The topic, or `undefined` when the event matches no route and there is no default. */
  topicFor(aggregateType: string, ownTopic: string | null): string | undefined {
    return ownTopic ?? this.routes.get(aggregateType) ?? this.defaultTopic;
  }
}
