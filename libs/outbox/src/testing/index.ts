export { outboxContract } from './outbox-contract';
export type { ContractTestApi } from './contract-app';
export { recordedEvents } from './recorded-events';
export type { DataStackFixture } from '@nest-outbox/core/internal';
