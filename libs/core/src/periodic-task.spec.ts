import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A run that stays in progress until `finish()` is called. */
  function controlledRun() {
    const calls: (() => void)[] = [];
    const run = jest.fn(() => new Promise<number>((resolve) => calls.push(() => resolve(1))));
    return { run, finish: () => calls.shift()?.() };
  }

  it('runs every interval counted from the end of the previous run, never two at once', async () => {
    const { run, finish } = controlledRun();
    const task = new PeriodicTask({ intervalMs: 100, run, onError: jest.fn() });
    task.start();
    await jest.advanceTimersByTimeAsync(99);
    expect(run).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(500); // the run is still in progress: no second one
    expect(run).toHaveBeenCalledTimes(1);
    finish();
    await jest.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(2);
    finish();
    await task.stop();
  });

  it('reports a failed run and goes on at the next interval', async () => {
    const onError = jest.fn();
    const run = jest.fn().mockRejectedValueOnce(new Error('boom')).mockResolvedValue(1);
    const task = new PeriodicTask({ intervalMs: 50, run, onError });
    task.start();
    await jest.advanceTimersByTimeAsync(50);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'boom' }));
    await jest.advanceTimersByTimeAsync(50);
    expect(run).toHaveBeenCalledTimes(2);
    await task.stop();
  });

  it('joins a run in progress when asked to run now, and stop() waits for it and cancels the next', async () => {
    const { run, finish } = controlledRun();
    const task = new PeriodicTask({ intervalMs: 100, run, onError: jest.fn() });
    task.start();
    const first = task.runNow();
    const second = task.runNow();
    expect(run).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await expect(Promise.all([first, second])).resolves.toEqual([1, 1]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('pauses at least minPauseFactor times the last scheduled run, never less than the interval', async () => {
    const { run, finish } = controlledRun();
    const task = new PeriodicTask({ intervalMs: 100, minPauseFactor: 9, run, onError: jest.fn() });
    task.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(50); // a run of 50 ms: the next one 450 ms after it
    finish();
    await jest.advanceTimersByTimeAsync(449);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    finish(); // a run of 0 ms: back to the interval
    await jest.advanceTimersByTimeAsync(99);
    expect(run).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(3);
    finish();
    await task.stop();
  });

  it("answers runNow() with a slow run's result while its pause lasts, never with a fast run's", async () => {
    const { run, finish } = controlledRun();
    const task = new PeriodicTask({ intervalMs: 100, minPauseFactor: 9, run, onError: jest.fn() });
    const fast = task.runNow();
    finish(); // 0 ms: the next runNow() runs again
    await expect(fast).resolves.toBe(1);
    const again = task.runNow();
    expect(run).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(50); // 50 ms: its result stands for 450 ms
    finish();
    await expect(again).resolves.toBe(1);
    await jest.advanceTimersByTimeAsync(449);
    await expect(task.runNow()).resolves.toBe(1);
    expect(run).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(1);
    const fresh = task.runNow();
    expect(run).toHaveBeenCalledTimes(3);
    finish();
    await expect(fresh).resolves.toBe(1);
  });
});
