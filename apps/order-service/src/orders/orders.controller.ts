import {
  Body,
  ConflictException,
  Controller,
  Get,
  Headers,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  UnprocessableEntityException,
} from '@nestjs/common';
import { InvalidTransitionError } from '@nest-outbox/outbox';
import { OrderMetrics } from '../observability/order.metrics';
import { CancelOrderDto } from './cancel-order.dto';
import { CreateOrderDto } from './create-order.dto';
import { idempotencyKeyOf } from './idempotency-key';
import { OrderIdParams } from './order-id.params';
import type { Order } from './order.entity';
import { OrdersService } from './orders.service';

type Command = 'create' | 'confirm' | 'cancel';

/**
 * The HTTP API: create, confirm, cancel and read orders. Bodies and path parameters are DTOs
 * checked by the global `RequestValidationPipe` (400 naming the field). An invalid transition answers 409
 * (nothing was written: no change, no event); an unknown order answers 404. `POST /orders`
 * takes an `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): a repeated
 * key answers the first answer; the key reused with a different body answers 422.
 */
@Controller('orders')
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly metrics: OrderMetrics,
  ) {}

  @Post()
  async create(
    @Body() body: CreateOrderDto,
    @Headers('idempotency-key') key: string | undefined,
  ): Promise<object> {
    const outcome = await this.orders.create(body, idempotencyKeyOf(key, body));
    this.metrics.commands.inc({
      command: 'create',
      outcome: outcome.kind === 'created' ? 'applied' : outcome.kind,
    });
    if (outcome.kind === 'created') return outcome.order;
    if (outcome.kind === 'replayed') return outcome.answer;
    throw new UnprocessableEntityException({
      error: 'idempotency_key_reused',
      message:
        'this Idempotency-Key came with a different request before: send a new key for a new order',
    });
  }

  @Post(':id/confirm')
  @HttpCode(200)
  confirm(@Param() { id }: OrderIdParams): Promise<Order> {
    return this.transition('confirm', id, () => this.orders.confirm(id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Param() { id }: OrderIdParams, @Body() body: CancelOrderDto): Promise<Order> {
    const reason = body.reason ?? 'unspecified';
    return this.transition('cancel', id, () => this.orders.cancel(id, reason));
  }

  @Get(':id')
  async read(@Param() { id }: OrderIdParams): Promise<Order> {
    const order = await this.orders.find(id);
    if (!order) throw new NotFoundException(`no order ${id}`);
    return order;
  }

  private async transition(command: Command, id: string, run: () => Promise<Order>) {
    try {
      const order = await run();
      this.metrics.commands.inc({ command, outcome: 'applied' });
      return order;
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
      const current = await this.orders.find(id);
      if (!current) {
        this.metrics.commands.inc({ command, outcome: 'not_found' });
        throw new NotFoundException(`no order ${id}`);
      }
      this.metrics.commands.inc({ command, outcome: 'conflict' });
      throw new ConflictException({
        error: 'invalid_transition',
        message: `order ${id} is ${current.status}: it cannot be ${command === 'confirm' ? 'confirmed' : 'cancelled'}`,
        status: current.status,
        version: current.version,
      });
    }
  }
}
