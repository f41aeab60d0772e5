import { OutboxNotifier } from './outbox-notifier';

describe('OutboxNotifier', () => {
  let now = 0;
  let sends = 0;
  const warnings: string[] = [];
  const logger = { warn: (m: string) => warnings.push(m) };

  beforeEach(() => {
    jest.useFakeTimers();
    now = 1_000;
    sends = 0;
    warnings.length = 0;
  });
  afterEach(() => jest.useRealTimers());

  const sender = (send: () => Promise<unknown>) => ({ send, close: () => Promise.resolve() });
  const flush = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('sends the first hint at once and coalesces a burst into one trailing send per interval', async () => {
    const notifier = new OutboxNotifier(
      sender(() => (sends++, Promise.resolve())),
      5,
      logger,
      () => now,
    );
    notifier.hint();
    expect(sends).toBe(1);
    for (let i = 0; i < 100; i++) notifier.hint();
    await flush();
    expect(sends).toBe(1);
    now += 5;
    jest.advanceTimersByTime(5);
    await flush();
    expect(sends).toBe(2);
    now += 50;
    jest.advanceTimersByTime(50);
    await flush();
    expect(sends).toBe(2);
    await notifier.close();
  });

  it('logs a failed send as its class and code, never its message, and keeps working', async () => {
    let fail = true;
    const refused = Object.assign(new Error('password authentication failed for user "x"'), {
      code: '28P01',
    });
    const notifier = new OutboxNotifier(
      sender(() => (sends++, fail ? Promise.reject(refused) : Promise.resolve())),
      5,
      logger,
      () => now,
    );
    notifier.hint();
    await flush();
    expect(warnings).toEqual(['outbox notification failed (relays will poll): Error 28P01']);
    fail = false;
    now += 10;
    notifier.hint();
    expect(sends).toBe(2);
    await notifier.close();
  });

  it('sends nothing after close, and closes its sender', async () => {
    let senderClosed = false;
    const notifier = new OutboxNotifier(
      {
        send: () => (sends++, Promise.resolve()),
        close: () => ((senderClosed = true), Promise.resolve()),
      },
      5,
      logger,
      () => now,
    );
    await notifier.close();
    expect(senderClosed).toBe(true);
    notifier.hint();
    jest.advanceTimersByTime(100);
    expect(sends).toBe(0);
  });
});
