import {
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Optional,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import { RelayLoop, RelayOperatorService, RelayOverviewService } from '@nest-outbox/relay';
import { limitOf, reasonOf, republishRangeOf } from './console-request.parser';
import { OperatorAuthGuard, operatorOf } from './operator-auth.guard';
import type { ConsolePressure } from './relay-console.options';
import { CONSOLE_PRESSURE } from './relay-console.constants';

type Body = Record<string, unknown> | undefined;

const who = (request: unknown, body: Body, reasonRequired: boolean) => ({
  actor: operatorOf(request),
  reason: reasonOf(body, reasonRequired),
});

/** Answers an outcome: 404 for an unknown event, 409 for one in the wrong state. */
function answer<T extends { outcome: string }>(result: T, done: string): T {
  if (result.outcome === done) return result;
  if (result.outcome === 'not-found') throw new NotFoundException(result);
  throw new ConflictException(result);
}

/** The operator actions over HTTP, each behind `OperatorAuthGuard` and audited. @internal */
@Controller('operator/api')
@UseGuards(OperatorAuthGuard)
export class RelayConsoleController {
  constructor(
    private readonly operator: RelayOperatorService,
    private readonly loop: RelayLoop,
    private readonly overview: RelayOverviewService,
    @Optional()
    @Inject(CONSOLE_PRESSURE)
    private readonly pressure?: () => ConsolePressure | Promise<ConsolePressure>,
  ) {}

  @Get('state')
  async state(@Req() request: unknown) {
    const overview = await this.overview.read();
    return {
      operator: operatorOf(request),
      ...overview,
      running: this.loop.isRunning,
      paused: this.loop.isPaused,
      pressure: this.pressure ? await this.pressure() : overview.pressure,
    };
  }

  @Get('parked')
  parked(@Query('limit') limit?: string, @Query('aggregateType') aggregateType?: string) {
    return this.operator.listParked({ limit: limitOf(limit), aggregateType });
  }

  @Post('events/:eventId/retry')
  @HttpCode(200)
  async retry(@Req() request: unknown, @Param('eventId') eventId: string, @Body() body: Body) {
    const result = await this.operator.retry(eventId, who(request, body, false));
    this.loop.wake();
    return answer(result, 'retried');
  }

  @Post('events/:eventId/skip')
  @HttpCode(200)
  async skip(@Req() request: unknown, @Param('eventId') eventId: string, @Body() body: Body) {
    return answer(await this.operator.skip(eventId, who(request, body, true)), 'skipped');
  }

  @Post('events/:eventId/park')
  @HttpCode(200)
  async park(@Req() request: unknown, @Param('eventId') eventId: string, @Body() body: Body) {
    return answer(await this.operator.park(eventId, who(request, body, true)), 'parked');
  }

  @Post('republish')
  @HttpCode(200)
  async republish(@Req() request: unknown, @Body() body: Body) {
    const range = republishRangeOf(body);
    const result = await this.operator.republish(range, who(request, body, true));
    this.loop.wake();
    return result;
  }

  @Post('relay/pause')
  @HttpCode(200)
  async pause(@Req() request: unknown, @Body() body: Body) {
    const { relayId } = this.overview;
    await this.operator.recordAction('pause', who(request, body, true), { relayId });
    await this.loop.pause();
    return { outcome: 'paused', relayId };
  }

  @Post('relay/resume')
  @HttpCode(200)
  async resume(@Req() request: unknown, @Body() body: Body) {
    const { relayId } = this.overview;
    await this.operator.recordAction('resume', who(request, body, false), { relayId });
    await this.loop.resume();
    return { outcome: 'resumed', relayId };
  }
}
