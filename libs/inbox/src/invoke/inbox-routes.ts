import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, Reflector } from '@nestjs/core';
import { PARAM_ARGS_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants';
import { RpcParamsFactory } from '@nestjs/microservices/factories/rpc-params-factory';
import { EmptyError, isObservable, lastValueFrom } from 'rxjs';
import type { InboxRoute } from '../chunk/chunk';
import type { InboxHandlerMetadata } from '../decorators/inbox-handler.decorator';
import { InboxHandlerSkippedError } from '../errors/inbox-handler-skipped.error';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { INBOX_HANDLER_METADATA, INBOX_OPTIONS } from '../inbox.constants';
import { resolveHandlerPolicy, type ResolvedInboxOptions } from '../options/inbox-options.resolver';

/** One `@InboxHandler` method found at start-up. @internal */
export interface DiscoveredInboxHandler {
  readonly controller: string;
  readonly method: string;
  readonly consumer: string;
  readonly topics: string[];
}

/** The call in progress: set once its handler method runs (interceptors may skip it). */
const calls = new AsyncLocalStorage<{ ran: boolean }>();

type Found = DiscoveredInboxHandler &
  Pick<InboxRoute, 'policy' | 'batch'> & {
    readonly instance: object;
    readonly fn: (...args: unknown[]) => unknown;
  };

/**
 * Every `@InboxHandler` method of the application, validated at start-up, and callable per topic
 * through Nest's `ExternalContextCreator`. @internal
 */
@Injectable()
export class InboxRoutes {
  private byTopic: Map<string, InboxRoute[]> | undefined;

  constructor(
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(ExternalContextCreator) private readonly contexts: ExternalContextCreator,
  ) {}

  explore(): DiscoveredInboxHandler[] {
    return this.find();
  }

  /** The topic's inbox routes (built on first use, once the application's enhancers are set). */
  forTopic(topic: string): readonly InboxRoute[] {
    this.byTopic ??= this.build();
    return this.byTopic.get(topic) ?? [];
  }

  private build(): Map<string, InboxRoute[]> {
    const byTopic = new Map<string, InboxRoute[]>();
    for (const found of this.find()) {
      const { consumer, policy, batch } = found;
      const route: InboxRoute = { consumer, policy, batch, invoke: this.invoker(found) };
      for (const topic of found.topics) byTopic.set(topic, [...(byTopic.get(topic) ?? []), route]);
    }
    return byTopic;
  }

  /**
   * The method called as Nest's RPC pipeline would: guards, interceptors (the application's
   * global ones too), pipes; exception filters when the method or its controller declares one
   * (Nest's fallback filter would log the error's message). A call whose interceptors returned
   * without running the method fails with `InboxHandlerSkippedError`.
   */
  private invoker({ instance, fn, method, controller }: Found): InboxRoute['invoke'] {
    const filters = new Reflector().getAllAndMerge<unknown[]>(EXCEPTION_FILTERS_METADATA, [
      fn,
      instance.constructor,
    ]);
    const call = this.contexts.create(
      instance as never,
      marking(fn),
      method,
      PARAM_ARGS_METADATA,
      new RpcParamsFactory() as never, // Nest types its `data` narrower than `ParamsFactory`
      undefined,
      undefined,
      { guards: true, interceptors: true, filters: filters.length > 0 },
      'rpc',
    );
    return async (payload, context) => {
      const state = { ran: false };
      try {
        const result: unknown = await calls.run(state, () => call(payload, context));
        // An exception filter's answer is handed back as is: an RPC filter's `throwError` fails.
        const value = isObservable(result)
          ? await lastValueFrom(result, { defaultValue: undefined })
          : result;
        if (state.ran) return value;
      } catch (error) {
        // An interceptor's `EMPTY` fails Nest's `lastValueFrom` before the method ran.
        if (state.ran || !(error instanceof EmptyError)) throw error;
      }
      throw new InboxHandlerSkippedError(`${controller}.${method}`);
    };
  }

  private find(): Found[] {
    const found: Found[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = (prototype as Record<string, unknown>)[method];
        const meta =
          typeof fn === 'function'
            ? (Reflect.getMetadata(INBOX_HANDLER_METADATA, fn) as InboxHandlerMetadata | undefined)
            : undefined;
        if (!meta) continue;
        const { consumer } = meta;
        const policy = resolveHandlerPolicy(consumer, this.options, meta.options);
        const patterns = (Reflect.getMetadata(PATTERN_METADATA, fn as object) ?? []) as unknown[];
        if (patterns.length === 0 || patterns.some((p) => typeof p !== 'string')) {
          throw new InboxMisuseError(
            `${wrapper.name}.${method}: @InboxHandler('${consumer}') needs @EventPattern('<topic>') with topic names (got ${JSON.stringify(patterns)})`,
          );
        }
        const controller = String(wrapper.name);
        const topics = patterns as string[];
        const [batch, callable] = [meta.batch === true, fn as Found['fn']];
        found.push({ controller, method, consumer, topics, policy, batch, instance, fn: callable });
      }
    }
    return found;
  }
}

/**
 * `fn` noting in the call in progress that it ran; it carries `fn`'s metadata (guards,
 * interceptors, pipes, filters, `SetMetadata`), which Nest and `Reflector` read from the handler.
 */
function marking(fn: Found['fn']): Found['fn'] {
  const marked = function (this: unknown, ...args: unknown[]): unknown {
    const state = calls.getStore();
    if (state) state.ran = true;
    return fn.apply(this, args);
  };
  for (const key of Reflect.getOwnMetadataKeys(fn) as unknown[])
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, fn), marked);
  return marked;
}
