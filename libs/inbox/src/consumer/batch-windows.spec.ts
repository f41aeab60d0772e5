import { BatchWindows } from './batch-windows';

const at = { topic: 't', partition: 0 };
const end = (batchSize: number, lastOffset: string) => ({
  ...at,
  batchSize,
  lastOffset,
  highWatermark: '0',
  offsetLag: '0',
  offsetLagLow: '0',
  firstOffset: '0',
  duration: 0,
});

describe('BatchWindows', () => {
  it('gives the last offset of a batch whose handed-over records all finished (aborted tail, markers)', () => {
    const windows = new BatchWindows();
    windows.start(at);
    windows.finished(at, [0n, 1n]);
    expect(windows.end(end(2, '5'))).toBe(5n);
    windows.start(at);
    expect(windows.end(end(0, '8'))).toBe(8n); // a batch of nothing but filtered records
  });

  it('gives nothing while a handed-over record has no final result, or outside a window', () => {
    const windows = new BatchWindows();
    windows.start(at);
    windows.finished(at, [0n, 0n]); // the same record twice counts once
    expect(windows.end(end(2, '5'))).toBeUndefined();
    windows.finished(at, [1n]); // after the window ended
    expect(windows.end(end(2, '5'))).toBeUndefined();
  });
});
