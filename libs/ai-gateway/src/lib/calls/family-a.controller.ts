import { Controller, Get, UseFilters, UseGuards } from '@nestjs/common';
import { FamilyAErrorFilter } from '../family-a-error.filter';
import { storedCompletionsNotServed } from '../gateway-errors';
import { GatewayKeyGuard } from '../gateway-key.guard';

/** OpenAI's stored completions route: known, so that the SDKs get a clear 404 rather than an unknown route. The calls are FamilyARoutes. */
@Controller()
@UseGuards(GatewayKeyGuard)
@UseFilters(FamilyAErrorFilter)
export class FamilyAController {
  @Get(['v1/chat/completions/:id', 'chat/completions/:id'])
  stored(): never {
    throw storedCompletionsNotServed();
  }
}
