import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { OUTBOX_RUNNER, OUTBOX_TRANSACTIONAL_METHODS } from './outbox.constants';
import { OutboxService } from './outbox.service';

/** Gives every singleton with `@OutboxTransactional()` methods its application's `OutboxService` (per instance). @internal */
@Injectable()
export class OutboxTransactionalExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly outbox: OutboxService,
  ) {}

  onModuleInit(): void {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    for (const wrapper of wrappers) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      if (!Reflect.getMetadata(OUTBOX_TRANSACTIONAL_METHODS, instance.constructor)) continue;
      // Not enumerable: hidden from the instance's keys and from serialization.
      Object.defineProperty(instance, OUTBOX_RUNNER, { value: this.outbox, configurable: true });
    }
  }
}
