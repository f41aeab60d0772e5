import { Inject, Injectable, type Type } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner } from '@nestjs/core';
import { PARAM_ARGS_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants';
import { isObservable, lastValueFrom } from 'rxjs';
import type { InboxRoute } from '../chunk/chunk';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { InboxHandlerPolicies } from '../options/inbox-handler.policies';

/** One `@InboxHandler` method found at start-up. @internal */
export interface DiscoveredInboxHandler {
  readonly controller: string;
  readonly method: string;
  readonly consumer: string;
  readonly topics: string[];
}

/** Nest's metadata keys of `@UseInterceptors` and `@UseFilters` (`@nestjs/common/constants`). */
const INTERCEPTORS = '__interceptors__';
const FILTERS = '__exceptionFilters__';

/**
 * What `@Payload()` (`RpcParamtype.PAYLOAD`, 3) and `@Ctx()` (`CONTEXT`, 6) read from an inbox
 * call's arguments `[payload, context]`, as Nest's `RpcParamsFactory` (not in its barrel) does.
 */
const rpcParams = {
  exchangeKeyForValue(type: number, data: string | undefined, args: unknown[]): unknown {
    if (type === 3) return data ? (args[0] as Record<string, unknown> | null)?.[data] : args[0];
    return type === 6 ? args[1] : null;
  },
};

type Found = DiscoveredInboxHandler & {
  readonly instance: object;
  readonly fn: (...args: unknown[]) => unknown;
};

/**
 * Every `@InboxHandler` method of the application, validated at start-up, and callable per topic
 * through `ExternalContextCreator`: the method's own guards, interceptors, pipes and exception
 * filters apply as under Nest's own RPC pipeline. @internal
 */
@Injectable()
export class InboxRoutes {
  private byTopic: Map<string, InboxRoute[]> | undefined;

  constructor(
    @Inject(InboxHandlerPolicies) private readonly policies: InboxHandlerPolicies,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(ExternalContextCreator) private readonly contexts: ExternalContextCreator,
  ) {}

  explore(): DiscoveredInboxHandler[] {
    return this.find().map(({ controller, method, consumer, topics }) => ({
      controller,
      method,
      consumer,
      topics,
    }));
  }

  /** The topic's inbox routes (built on first use, once the application's enhancers are set). */
  forTopic(topic: string): readonly InboxRoute[] {
    this.byTopic ??= this.build();
    return this.byTopic.get(topic) ?? [];
  }

  private build(): Map<string, InboxRoute[]> {
    const byTopic = new Map<string, InboxRoute[]>();
    const contexts = withoutGlobalInterceptors(this.contexts);
    for (const found of this.find()) {
      const { consumer, policy, batch } = this.policies.forHandler(found.fn)!;
      const call = contexts.create(
        found.instance as never,
        found.fn as never,
        found.method,
        PARAM_ARGS_METADATA,
        rpcParams as never,
        undefined,
        undefined,
        {
          guards: true,
          interceptors: declared(INTERCEPTORS, found) > 0,
          filters: declared(FILTERS, found) > 0,
        },
        'rpc',
      ) as InboxRoute['invoke'];
      // An exception filter's answer is handed back as is: an RPC filter's `throwError` must fail.
      const invoke: InboxRoute['invoke'] = async (payload, context) => {
        const result = await call(payload, context);
        return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result;
      };
      const route: InboxRoute = { consumer, policy, batch, invoke };
      for (const topic of found.topics) byTopic.set(topic, [...(byTopic.get(topic) ?? []), route]);
    }
    return byTopic;
  }

  private find(): Found[] {
    const found: Found[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = (prototype as Record<string, unknown>)[method];
        if (typeof fn !== 'function' || !this.policies.metadataOf(fn)) continue;
        const handler = this.policies.forHandler(fn)!; // validates the options now
        const patterns = (Reflect.getMetadata(PATTERN_METADATA, fn) ?? []) as unknown[];
        if (patterns.length === 0 || patterns.some((p) => typeof p !== 'string')) {
          throw new InboxMisuseError(
            `${wrapper.name}.${method}: @InboxHandler('${handler.consumer}') needs @EventPattern('<topic>') with topic names (got ${JSON.stringify(patterns)})`,
          );
        }
        const controller = String(wrapper.name);
        found.push({
          controller,
          method,
          consumer: handler.consumer,
          topics: patterns as string[],
          instance,
          fn: fn as Found['fn'],
        });
      }
    }
    return found;
  }
}

/** How many enhancers under `key` the method and its controller declare. */
function declared(key: string, { instance, fn }: Found): number {
  const onClass = Reflect.getMetadata(key, (instance as { constructor: Type }).constructor) as
    | unknown[]
    | undefined;
  const onMethod = Reflect.getMetadata(key, fn) as unknown[] | undefined;
  return (onClass?.length ?? 0) + (onMethod?.length ?? 0);
}

/**
 * The application's `ExternalContextCreator` without its global interceptors: they would wrap
 * every record's call in Nest's interceptor chain (nestjs-cls registers one in every app). The
 * method's and its controller's interceptors still run, and global guards and pipes.
 */
function withoutGlobalInterceptors(contexts: ExternalContextCreator): ExternalContextCreator {
  const inner = (contexts as unknown as { interceptorsContextCreator?: object })
    .interceptorsContextCreator;
  if (!inner) return contexts;
  const local = Object.create(inner, { getGlobalMetadata: { value: () => [] } }) as object;
  return Object.create(contexts, { interceptorsContextCreator: { value: local } }) as never;
}
