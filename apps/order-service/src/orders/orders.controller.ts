import {
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
} from '@nestjs/common';
import { Idempotent, InvalidTransitionError } from '@nest-outbox/outbox';
import { OrderMetrics } from '../observability/order.metrics';
import { CancelOrderDto } from './cancel-order.dto';
import { CreateOrderDto } from './create-order.dto';
import { OrderIdParams } from './order-id.params';
import type { Order } from './order.entity';
import { OrdersService } from './orders.service';

type Command = 'create' | 'confirm' | 'cancel';

/**
 * The HTTP API: create, confirm, cancel and read orders. Bodies and path parameters are DTOs
 * checked by the global `RequestValidationPipe` (400 naming the field). An invalid transition answers 409
 * (nothing was written: no change, no event); an unknown order answers 404. Every command
 * takes an `Idempotency-Key` header (`@Idempotent()` of `@nest-outbox/outbox`): a repeated key
 * answers the first answer, even after a lost answer; the key reused with another request, 422.
 */
@Controller('orders')
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly metrics: OrderMetrics,
  ) {}

  @Post()
  @Idempotent({ critical: false })
  async create(@Body() body: CreateOrderDto): Promise<Order> {
    const order = await this.orders.create(body);
    this.metrics.commands.inc({ command: 'create', outcome: 'applied' });
    return order;
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @Idempotent()
  confirm(@Param() { id }: OrderIdParams): Promise<Order> {
    return this.transition('confirm', id, () => this.orders.confirm(id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Idempotent()
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
