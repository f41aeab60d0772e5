import { SeededRandom } from './seeded-random';

/** A command the order service said it applied (2xx): its event must reach Kafka. */
export interface AppliedCommand {
  readonly orderId: string;
  readonly version: number;
  readonly eventType: 'order.created' | 'order.confirmed' | 'order.cancelled';
}

/** What one round's HTTP load did. */
export interface LoadFigures {
  commands: number;
  applied: number;
  /** 409s: invalid or lost-race transitions, refused as they must be. */
  conflicts: number;
  /** 503 { error: 'database_unavailable', retryable: true }: typed refusals during a fault. */
  unavailable: number;
  /** No answer (connection refused or reset, timeout). */
  lostAnswers: number;
}

type Status = 'pending' | 'confirmed' | 'cancelled';

interface Answer {
  readonly status: number;
  readonly body: { id?: string; version?: number; status?: Status; error?: string } | null;
}

async function call(url: string, method: string, body?: unknown): Promise<Answer | undefined> {
  try {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Answer['body']) : null };
  } catch {
    return undefined;
  }
}

/**
 * HTTP load on the order service for `durationMs` from `clients` concurrent clients: new
 * orders, confirmations and cancellations, races (confirm and cancel of one order at once)
 * and invalid transitions on purpose (a cancelled order confirmed or cancelled again: must
 * answer 409). Every 2xx is recorded as applied; a 5xx other than the typed 503, a 2xx to
 * an invalid transition, or an answer that makes no sense is a violation.
 */
export class OrderLoad {
  readonly applied: AppliedCommand[] = [];
  readonly violations: string[] = [];
  /** Orders whose last known status is terminal (cancelled): every transition must be refused. */
  private readonly cancelled: string[] = [];
  private readonly open: string[] = [];

  constructor(private readonly baseUrl: string) {}

  async run(rng: SeededRandom, durationMs: number, clients: number): Promise<LoadFigures> {
    const figures: LoadFigures = {
      commands: 0,
      applied: 0,
      conflicts: 0,
      unavailable: 0,
      lostAnswers: 0,
    };
    const deadline = Date.now() + durationMs;
    const client = async () => {
      while (Date.now() < deadline) await this.step(rng, figures);
    };
    await Promise.all(Array.from({ length: clients }, client));
    return figures;
  }

  private async step(rng: SeededRandom, f: LoadFigures): Promise<void> {
    const roll = rng.next();
    if (roll < 0.35 || this.open.length === 0) {
      await this.create(rng, f);
    } else if (roll < 0.6) {
      await this.transition(this.takeOpen(rng), 'confirm', f);
    } else if (roll < 0.75) {
      await this.transition(this.takeOpen(rng), 'cancel', f);
    } else if (roll < 0.9) {
      const id = await this.create(rng, f);
      if (id) {
        this.dropOpen(id);
        await Promise.all([this.transition(id, 'confirm', f), this.transition(id, 'cancel', f)]);
      }
    } else if (this.cancelled.length > 0) {
      const id = rng.pick(this.cancelled);
      await this.transition(id, rng.chance(0.5) ? 'confirm' : 'cancel', f, true);
    }
  }

  /** Creates one order outside the load (the poison's); its id, if it was created. */
  async createOne(): Promise<string | undefined> {
    const figures = { commands: 0, applied: 0, conflicts: 0, unavailable: 0, lostAnswers: 0 };
    const id = await this.create(new SeededRandom(1), figures);
    if (id) this.dropOpen(id);
    return id;
  }

  /** Confirms one order outside the load (the poison's, whose event then waits). */
  async confirmOne(id: string): Promise<void> {
    const figures = { commands: 0, applied: 0, conflicts: 0, unavailable: 0, lostAnswers: 0 };
    await this.transition(id, 'confirm', figures);
    this.dropOpen(id);
  }

  private dropOpen(id: string): void {
    const i = this.open.indexOf(id);
    if (i >= 0) this.open.splice(i, 1);
  }

  private takeOpen(rng: SeededRandom): string {
    const i = rng.int(0, this.open.length - 1);
    return this.open.splice(i, 1)[0]!;
  }

  private async create(rng: SeededRandom, f: LoadFigures): Promise<string | undefined> {
    const n = rng.int(1, 9999);
    const answer = await call(`${this.baseUrl}/orders`, 'POST', {
      customerId: `chaos-${n % 97}`,
      amountCents: 100 + n,
      currency: 'EUR',
      shippingAddress: `chaos ${n}, 1 Fault Street`,
    });
    f.commands += 1;
    if (!this.tally(answer, f, 201, 'create')) return undefined;
    const { id, version } = answer!.body!;
    this.record({ orderId: id!, version: version!, eventType: 'order.created' }, f);
    this.open.push(id!);
    return id;
  }

  private async transition(
    id: string,
    command: 'confirm' | 'cancel',
    f: LoadFigures,
    mustRefuse = false,
  ): Promise<void> {
    const body = command === 'cancel' ? { reason: 'chaos' } : undefined;
    const answer = await call(`${this.baseUrl}/orders/${id}/${command}`, 'POST', body);
    f.commands += 1;
    if (!this.tally(answer, f, 200, command)) {
      if (answer?.status === 409 && answer.body?.status === 'pending') this.open.push(id);
      if (answer?.status === 409 && answer.body?.status === 'cancelled' && !mustRefuse)
        this.cancelled.push(id);
      return;
    }
    if (mustRefuse) {
      this.violations.push(
        `I2: ${command} of cancelled order ${id} answered 200 (an invalid transition applied)`,
      );
      return;
    }
    const { version, status } = answer!.body!;
    const eventType = command === 'confirm' ? 'order.confirmed' : 'order.cancelled';
    this.record({ orderId: id, version: version!, eventType }, f);
    if (status === 'cancelled') this.cancelled.push(id);
    else this.open.push(id);
  }

  /** True for the expected success; counts and judges every other answer. */
  private tally(answer: Answer | undefined, f: LoadFigures, ok: number, what: string): boolean {
    if (!answer) {
      f.lostAnswers += 1;
      return false;
    }
    if (answer.status === ok) return true;
    if (answer.status === 409) f.conflicts += 1;
    else if (answer.status === 503 && answer.body?.error === 'database_unavailable')
      f.unavailable += 1;
    else
      this.violations.push(
        `${what} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
      );
    return false;
  }

  private record(command: AppliedCommand, f: LoadFigures): void {
    this.applied.push(command);
    f.applied += 1;
  }
}
