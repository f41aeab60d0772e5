export { inboxContract } from './inbox-contract';
