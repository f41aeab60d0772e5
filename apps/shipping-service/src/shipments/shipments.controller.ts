import { Body, Controller, Get, HttpCode, NotFoundException, Param, Post } from '@nestjs/common';
import { LookupShipmentsDto } from './lookup-shipments.dto';
import { ShipmentByOrderParams } from './shipment-by-order.params';
import type { Shipment } from './shipment.entity';
import { ShipmentsService } from './shipments.service';

/**
 * The read side: a shipment by order id, and a bulk lookup for reconciliation. Parameters
 * and bodies are DTOs checked by the global `RequestValidationPipe` (400 naming the field).
 */
@Controller('shipments')
export class ShipmentsController {
  constructor(private readonly shipments: ShipmentsService) {}

  @Get('by-order/:orderId')
  async byOrder(@Param() { orderId }: ShipmentByOrderParams): Promise<Shipment> {
    const shipment = await this.shipments.findByOrder(orderId);
    if (!shipment) throw new NotFoundException(`no shipment for order ${orderId}`);
    return shipment;
  }

  /** `POST /shipments/lookup { orderIds }` -> `{ shipments }` (orders without one are absent). */
  @Post('lookup')
  @HttpCode(200)
  async lookup(@Body() { orderIds }: LookupShipmentsDto): Promise<{ shipments: Shipment[] }> {
    return { shipments: await this.shipments.findByOrders(orderIds) };
  }
}
