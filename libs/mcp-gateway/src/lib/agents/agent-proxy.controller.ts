import { All, Controller, Next, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { AgentProxy } from './agent-proxy';

/**
 * `/agents/{name}` and everything under it: A2A, answered by the SDK's handlers (AgentProxy). A
 * controller rather than middleware, so that every request is traced, logged and measured as any
 * other first. The protocol's own, not the admin API: left out of the OpenAPI document, as `/mcp` is.
 */
@ApiExcludeController()
@Controller()
export class AgentProxyController {
  constructor(private readonly proxy: AgentProxy) {}

  @All(['agents/:name', 'agents/:name/*rest'])
  serve(@Req() req: Request, @Res() res: Response, @Next() next: NextFunction): void {
    this.proxy.handle(req, res, next);
  }
}
