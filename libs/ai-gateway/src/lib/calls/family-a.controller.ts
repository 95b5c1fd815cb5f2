import { Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { FamilyAErrorFilter } from '../family-a-error.filter';
import { storedCompletionsNotServed } from '../gateway-errors';
import { GatewayKeyGuard } from '../gateway-key.guard';
import { FamilyACalls } from './family-a-calls';

/** OpenAI's routes, with and without `/v1`, as the official SDKs and LiteLLM clients call them. */
@Controller()
@UseGuards(GatewayKeyGuard)
@UseFilters(FamilyAErrorFilter)
export class FamilyAController {
  constructor(private readonly calls: FamilyACalls) {}

  @Post(['v1/chat/completions', 'chat/completions'])
  chatCompletions(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.calls.handle('chat', request, response);
  }

  @Post(['v1/completions', 'completions'])
  completions(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.calls.handle('completions', request, response);
  }

  @Post(['v1/embeddings', 'embeddings'])
  embeddings(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.calls.handle('embeddings', request, response);
  }

  @Get(['v1/chat/completions/:id', 'chat/completions/:id'])
  stored(): never {
    throw storedCompletionsNotServed();
  }
}
