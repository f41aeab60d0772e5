import { NotifyConnection, type NotifyClient } from './notify-connection';

/** A recording stand-in for a node-postgres client (the real one is in the int-spec). */
class FakeClient implements NotifyClient {
  readonly queries: string[] = [];
  ended = false;
  failNext: Error | undefined;
  private onError: ((error: Error) => void) | undefined;

  connect(): Promise<unknown> {
    return Promise.resolve();
  }

  query(text: string): Promise<unknown> {
    this.queries.push(text);
    const failure = this.failNext;
    this.failNext = undefined;
    return failure ? Promise.reject(failure) : Promise.resolve();
  }

  end(): Promise<unknown> {
    this.ended = true;
    return Promise.resolve();
  }

  on(_event: 'error', listener: (error: Error) => void): unknown {
    this.onError = listener;
    return this;
  }

  /** What node-postgres does when the server closes the connection. */
  break(): void {
    this.onError?.(new Error('Connection terminated unexpectedly'));
  }
}

describe('NotifyConnection', () => {
  let clients: FakeClient[];
  const connection = () =>
    new NotifyConnection(
      () => {
        const client = new FakeClient();
        clients.push(client);
        return client;
      },
      'NOTIFY "ch", \'s.t\'',
      1_000,
    );

  beforeEach(() => {
    jest.useFakeTimers();
    clients = [];
  });
  afterEach(() => jest.useRealTimers());

  it('opens one connection on the first send, turns synchronous_commit off once, then only notifies', async () => {
    const notify = connection();
    expect(clients).toHaveLength(0);
    await notify.send();
    await notify.send();
    expect(clients).toHaveLength(1);
    expect(clients[0]!.queries).toEqual([
      'SET synchronous_commit = off',
      'NOTIFY "ch", \'s.t\'',
      'NOTIFY "ch", \'s.t\'',
    ]);
    await notify.close();
  });

  it('rejects a failed send, drops that connection and opens a new one for the next send', async () => {
    const notify = connection();
    await notify.send();
    clients[0]!.failNext = new Error('server closed the connection');
    await expect(notify.send()).rejects.toThrow('server closed the connection');
    expect(clients[0]!.ended).toBe(true);
    await notify.send();
    expect(clients).toHaveLength(2);
    expect(clients[1]!.queries).toEqual(['SET synchronous_commit = off', 'NOTIFY "ch", \'s.t\'']);
    await notify.close();
  });

  it('drops a connection that reports an error between sends', async () => {
    const notify = connection();
    await notify.send();
    clients[0]!.break();
    await notify.send();
    expect(clients).toHaveLength(2);
    await notify.close();
  });

  it('closes the connection after the idle time without a send, not before', async () => {
    const notify = connection();
    await notify.send();
    jest.advanceTimersByTime(600);
    await notify.send();
    jest.advanceTimersByTime(999);
    expect(clients[0]!.ended).toBe(false);
    jest.advanceTimersByTime(601);
    expect(clients[0]!.ended).toBe(true);
    await notify.send();
    expect(clients).toHaveLength(2);
    await notify.close();
    expect(clients[1]!.ended).toBe(true);
  });
});
