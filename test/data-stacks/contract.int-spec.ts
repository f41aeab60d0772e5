import { inboxContract } from '@nest-outbox/inbox/testing';
import { outboxContract } from '@nest-outbox/outbox/testing';
import { DATABASE_URL } from '@test/support';
import { dataStacks } from './data-stacks';

// The public contract suites, against every data stack the libraries serve.
for (const stack of dataStacks(DATABASE_URL)) {
  outboxContract(stack);
  inboxContract(stack);
}
