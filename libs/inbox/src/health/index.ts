/**
 * `@nest-outbox/inbox/health`: the inbox's terminus indicator, apart from the main entry
 * point so that the inbox loads without `@nestjs/terminus` (an optional peer).
 */
export { InboxHealthIndicator } from './inbox.health-indicator';
