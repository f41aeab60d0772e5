import type { SampleHttpClient } from './sample-http.client';

/** What a workload did, counted from the HTTP answers. */
export interface WorkloadResult {
  created: number;
  confirmed: number;
  cancelled: number;
  /** Invalid transitions attempted on purpose, answered 409 as they must be. */
  conflicts: number;
  /** Answers that were not the expected ones (5xx, network errors, unexpected 409s). */
  errors: number;
  readonly orderIds: string[];
  readonly elapsedMs: number;
}

type Step = 'confirm' | 'cancel' | 'confirm-409' | 'cancel-409';

/**
 * The life of order number `i` (a deterministic mix out of every 20 orders): 70% confirmed,
 * 10% confirmed then cancelled, 10% cancelled while pending, 5% confirmed then confirmed
 * again (409), 5% cancelled then confirmed and cancelled again (409 twice).
 */
export function planOf(i: number): Step[] {
  const k = i % 20;
  if (k <= 1) return ['cancel'];
  if (k <= 3) return ['confirm', 'cancel'];
  if (k === 4) return ['confirm', 'confirm-409'];
  if (k === 5) return ['cancel', 'confirm-409', 'cancel-409'];
  return ['confirm'];
}

/** Options of `runOrderWorkload`. */
export interface WorkloadOptions {
  readonly orders: number;
  readonly concurrency: number;
  /** Called after each order's life is done (for progress lines). */
  readonly onOrderDone?: (done: number, result: WorkloadResult) => void;
}

/** Drives `orders` orders through the HTTP API from `concurrency` concurrent clients. */
export async function runOrderWorkload(
  http: SampleHttpClient,
  options: WorkloadOptions,
): Promise<WorkloadResult> {
  const started = Date.now();
  const result: WorkloadResult = {
    created: 0,
    confirmed: 0,
    cancelled: 0,
    conflicts: 0,
    errors: 0,
    orderIds: [],
    elapsedMs: 0,
  };
  let next = 0;
  let done = 0;
  const expect = async (call: Promise<{ status: number }>, status: number) => {
    const answer = await call.catch(() => ({ status: 0 }));
    if (answer.status !== status) result.errors += 1;
    return answer.status === status;
  };
  const lifeOf = async (i: number) => {
    const created = await http
      .createOrder(`customer-${i % 97}`, 500 + (i % 50) * 100)
      .catch(() => undefined);
    if (created?.status !== 201) {
      result.errors += 1;
      return;
    }
    result.created += 1;
    const id = created.body.id;
    result.orderIds.push(id);
    for (const step of planOf(i)) {
      if (step === 'confirm' && (await expect(http.confirm(id), 200))) result.confirmed += 1;
      if (step === 'cancel' && (await expect(http.cancel(id), 200))) result.cancelled += 1;
      if (step === 'confirm-409' && (await expect(http.confirm(id), 409))) result.conflicts += 1;
      if (step === 'cancel-409' && (await expect(http.cancel(id), 409))) result.conflicts += 1;
    }
  };
  const client = async () => {
    for (let i = next++; i < options.orders; i = next++) {
      await lifeOf(i);
      done += 1;
      options.onOrderDone?.(done, result);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  return { ...result, elapsedMs: Date.now() - started };
}
