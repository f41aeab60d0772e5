import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
} from '@nestjs/common';
import { isUuid } from '@nest-outbox/core';
import type { Shipment } from './shipment.entity';
import { ShipmentsService } from './shipments.service';

const MAX_LOOKUP = 5000;

/** The read side: a shipment by order id, and a bulk lookup for reconciliation. */
@Controller('shipments')
export class ShipmentsController {
  constructor(private readonly shipments: ShipmentsService) {}

  @Get('by-order/:orderId')
  async byOrder(@Param('orderId', new ParseUUIDPipe()) orderId: string): Promise<Shipment> {
    const shipment = await this.shipments.findByOrder(orderId);
    if (!shipment) throw new NotFoundException(`no shipment for order ${orderId}`);
    return shipment;
  }

  /** `POST /shipments/lookup { orderIds }` -> `{ shipments }` (orders without one are absent). */
  @Post('lookup')
  @HttpCode(200)
  async lookup(@Body() body: { orderIds?: unknown }): Promise<{ shipments: Shipment[] }> {
    const ids = body?.orderIds;
    if (!Array.isArray(ids) || ids.length > MAX_LOOKUP || !ids.every(isUuid)) {
      throw new BadRequestException(`orderIds must be an array of at most ${MAX_LOOKUP} UUIDs`);
    }
    return { shipments: await this.shipments.findByOrders(ids) };
  }
}
