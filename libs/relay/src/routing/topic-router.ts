import { OptionChecks } from '@nest-outbox/core/internal';
import { RELAY_MODULE } from '../relay.constants';

/** A legal Kafka topic name (what the broker accepts); `.` and `..` are not. @internal */
export const isTopicName = (topic: string) =>
  /^[a-zA-Z0-9._-]{1,249}$/.test(topic) && topic !== '.' && topic !== '..';

const PAIR = /^\s*([^=\s,]+)\s*=\s*([^=\s,]+)\s*$/;
const check: OptionChecks = new OptionChecks(RELAY_MODULE);

function checkTopic(option: string, topic: unknown): string {
  if (typeof topic !== 'string') check.fail(option, 'must be a topic name string');
  if (!isTopicName(topic))
    check.fail(
      option,
      `has an invalid Kafka topic name ${JSON.stringify(topic)}: use 1-249 characters from [a-zA-Z0-9._-]`,
    );
  return topic;
}

/**
 * Parses `"order=orders,payment=payments"` (or an object) into a route map.
 * @throws InvalidOptionsError on any other syntax or an invalid topic name
 */
export function parseTopicRoutes(
  routes: Readonly<Record<string, string>> | string | undefined,
): ReadonlyMap<string, string> {
  if (typeof routes === 'string') {
    const pairs = routes.trim() === '' ? [] : routes.split(',');
    return new Map(
      pairs.map((part) => {
        const match = PAIR.exec(part);
        if (!match)
          check.fail(
            'routing.routes',
            `has unknown syntax near ${JSON.stringify(part)}: write "aggregate_type=topic" pairs separated by commas, for example "order=orders,payment=payments"`,
          );
        return [match[1]!, checkTopic('routing.routes', match[2])];
      }),
    );
  }
  if (routes !== undefined && (typeof routes !== 'object' || routes === null))
    check.fail(
      'routing.routes',
      'must be an object { aggregateType: topic } or a string "aggregate_type=topic,..."',
    );
  return new Map(
    Object.entries(routes ?? {}).map(([type, t]) => [
      type,
      checkTopic(`routing.routes.${type}`, t),
    ]),
  );
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
