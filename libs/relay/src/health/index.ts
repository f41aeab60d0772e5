/**
 * `@nest-outbox/relay/health`: the relay's terminus indicator, apart from the main entry
 * point so that the relay loads without `@nestjs/terminus` (an optional peer).
 */
export { RelayHealthIndicator } from './relay.health-indicator';
