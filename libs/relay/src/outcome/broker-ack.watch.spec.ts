import { BrokerAckWatch } from './broker-ack.watch';

describe('BrokerAckWatch', () => {
  it('says the broker acknowledges others when another send was acked between two failures of the event', () => {
    const watch = new BrokerAckWatch();
    expect(watch.failed('e1')).toBe(false); // first failure seen here
    watch.acked(['e2']);
    expect(watch.failed('e1')).toBe(true);
  });

  it('says it does not when nothing was acked between two failures (an outage)', () => {
    const watch = new BrokerAckWatch();
    watch.acked(['e0']);
    expect(watch.failed('e1')).toBe(false);
    expect(watch.failed('e2')).toBe(false);
    expect(watch.failed('e1')).toBe(false);
  });

  it('forgets an event once a send of it is acknowledged', () => {
    const watch = new BrokerAckWatch();
    watch.failed('e1');
    watch.acked(['e1']);
    expect(watch.failed('e1')).toBe(false);
  });
});
